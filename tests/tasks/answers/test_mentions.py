"""The choice reader's sentence rules (plates.tasks.answers.mentions) on real replies that released models wrote.

Every reply below is quoted verbatim from a benchmark's released outputs (the corpus in tests/data/replies; the
id names benchmark/model/item): BLINK val (zeyofu/BLINK_Benchmark, eval/saved_outputs, Apache-2.0) and MathVista
testmini (lupantech/MathVista, results/, CC BY-SA 4.0).
"""

from __future__ import annotations

from plates.tasks.answers import read_choice
from tests.support.reply_corpus import load_replies

DEPTH = {"A": "A is closer", "B": "B is closer"}  # BLINK Relative_Depth
REFLECTANCE = {"A": "A is darker", "B": "B is darker", "C": "About the same"}  # BLINK Relative_Reflectance
BOXES = {"A": "Box A", "B": "Box B"}  # BLINK Object_Localization
POINTS = {k: f"Point {k}" for k in "ABCD"}  # BLINK *_Correspondence
PICTURES = {k: f"picture {k}" for k in "ABCD"}  # BLINK IQ_Test
SECOND_THIRD = {"A": "the second image", "B": "the third image"}  # BLINK Art_Style, Jigsaw, Visual_Similarity
FOUR_IMAGES = {"A": "the first image", "B": "the second image", "C": "the third image", "D": "the fourth image"}
YES_NO = {"A": "yes", "B": "no"}  # BLINK Spatial_Relation
LEFT_RIGHT = {"A": "left", "B": "right"}  # BLINK Multi-view_Reasoning


def _read(reply, options):
    return read_choice(reply, options)


# ---- class 1: "A" is a key, not an article -------------------------------------------------------------------

def test_sentence_initial_a_before_a_verb_names_option_a():
    # blink/cogvlm-chat/val_Relative_Depth_1 (the lone-capital fallback read B: it skipped "A", took "point B")
    got = _read("A is closer. Point A is closer to the camera than point B.</s>", DEPTH)
    assert (got.answer, got.status) == ("A", "ok")
    # blink/OPUS/val_Relative_Reflectance_11
    reply = ("A is darker. The surface at point A appears to have a darker orange/red color compared to the "
             "lighter gray surface color at point B.")
    assert _read(reply, REFLECTANCE).answer == "A"


def test_box_a_first_then_box_b_discussed_names_a():
    # blink/GPT4Turbo/val_Object_Localization_100 (read B before: "Box B, on the other hand, ...")
    reply = ("Box A more accurately localizes and encloses the computer keyboard. It fits closely around the "
             "keyboard, touching the outermost pixels of the keyboard without including much of the surrounding "
             "area. Box B, on the other hand, includes a significant portion of the area around the keyboard, "
             "which is not ideal for precise object localization.")
    assert _read(reply, BOXES).answer == "A"


def test_neither_a_nor_b_commits_to_no_option():
    # blink/OPUS/val_Object_Localization_33 (read B before)
    reply = (
        'Neither bounding box A nor B accurately localizes or encloses the dress worn by the girl in the '
        "image. Box A surrounds the girl's face, while Box B does not enclose any specific object, as it "
        'extends beyond the right edge of the image. The dress the girl is wearing is not bounded by '
        'either annotated rectangle.'
    )
    got = _read(reply, BOXES)
    assert got.answer is None and got.status in ("unparsed", "refusal")


def test_a_as_an_article_is_still_no_key():
    # the trap the lone-capital rule was written for stays: "A blue circle" names no option A
    assert _read("A blue circle", {"A": "Red", "B": "Blue", "C": "Green"}).answer is None


# ---- class 2: a clear conclusion after discussing every option -------------------------------------------------

def test_conclusion_on_the_line_after_the_answer_phrase():
    # blink/GPT4Turbo/val_Counting_119 (BLINK publishes no option texts for Counting: these are stand-ins)
    reply = ("In the image provided, there is one person visible, and they are not wearing a yellow shirt. "
             "Therefore, the correct answer is:\n(C) 0")
    assert _read(reply, {"A": "3", "B": "2", "C": "0", "D": "1"}).answer == "C"


def test_conclusion_after_every_option_is_discussed():
    # blink/OPUS/val_IQ_Test_50 (ambiguous before: "(A)".."(D)" are all discussed)
    reply = (
        "To determine which option follows the pattern established by the given shapes, let's analyze "
        'the progression:\n\n1. The first row shows diamond shapes divided into quadrants. The number of '
        'shaded quadrants increases by 1 each time, from 1 to 2 to 3.\n\n2. The second row introduces a '
        'new element - square shapes divided into quadrants. There are two squares side-by-side.\n\n'
        'Looking at the answer choices:\n\n(A) Continues the pattern of 2 square shapes, but all quadrants '
        "are shaded. This doesn't follow the established progression.\n\n(B) Shows 2 square shapes with 3 "
        'and 4 quadrants shaded respectively. This logically continues the pattern from the diamonds '
        "above.\n\n(C) Has 2 square shapes but the shading doesn't follow the pattern, with 2 and 4 "
        'quadrants filled in.\n\n(D) Breaks the pattern by introducing a single square with no shading.\n\n'
        'Therefore, the correct answer that follows the rule established by the diamond shapes is (B). '
        'The number of shaded quadrants in the squares increases from 3 to 4, just as it increased from '
        '1 to 2 to 3 in the diamonds.'
    )
    assert _read(reply, PICTURES).answer == "B"


def test_summary_paragraph_after_a_walk_through_the_points():
    # blink/GPT4V/val_Semantic_Correspondence_115
    reply = ("The reference point (REF) on the first image is located on the motorcycle's handlebar, specifically "
             "on the left grip. To find the corresponding point on the second image, we need to locate the same "
             "part of the motorcycle.\n\nLooking at the second image, we can see that:\n\n(A) Point A is on the "
             "man's jacket, not on the motorcycle.\n(B) Point B is on the motorcycle's engine area.\n(C) Point C is "
             "on the man's beard, not on the motorcycle.\n(D) Point D is on the motorcycle's handlebar, "
             "specifically on the left grip.\n\nThe corresponding point for the reference point on the first image "
             "is (D) Point D, as it is the same location on the motorcycle's handlebar (left grip) as the REF "
             "point on the first image.")
    assert _read(reply, POINTS).answer == "D"


def test_i_would_select_an_option_by_its_text():
    # blink/OPUS/val_Functional_Correspondence_111 (read D before)
    reply = (
        'I would select Point C as the corresponding point to the reference point labeled "REF" on the '
        'hammer image, if both the hammer and spoon were used for the action "Pull out a nail".\n\nThe '
        'reference point on the hammer is at the claw end, which is the part that would be used to grip '
        "and pull out a nail. On the spoon image, Point C is located at the tip of the spoon's bowl. If "
        'one were to attempt using a spoon to pull out a nail (although it would be an unorthodox and '
        "likely ineffective tool choice for that task), the tip of the spoon's bowl would be the part "
        'that would be wedged under the nail head to attempt to pry it out, serving the analogous '
        'function as the claw end of a hammer. So Point C spatially and functionally corresponds to the '
        'labeled reference point if mapping the spoon to the hammer for the "pull out a nail" action.'
    )
    assert _read(reply, POINTS).answer == "C"


def test_genuine_hedge_still_abstains():
    # blink/GPT4V-images-concatenated/val_Forensic_Detection_11
    reply = (
        'Based on the examination of the four images provided, it is difficult to definitively determine '
        'which one is most likely to be a real photograph without additional context, as all of them '
        'depict scenes that could be real. Each image shows bicycles inside a public transportation '
        'vehicle, such as a bus or train, and all appear to be taken with a high level of photographic '
        'quality and attention to detail.\n\nHowever, if I must assess the likelihood of each image being '
        'a real photograph based on visual cues alone, I would consider the following:\n\n- The lighting '
        'and shadows in each image, looking for natural inconsistencies or artificial elements.\n- The '
        'reflections and textures, checking if they correspond to the materials depicted.\n- The presence '
        'of any elements that might seem out of place or digitally altered.\n\nWithout further '
        'information, it is not possible to definitively state which image is most likely to be a real '
        'photograph. All images could potentially be real, and without evidence of digital manipulation '
        'or context that suggests otherwise, they should be treated as such.'
    )
    got = _read(reply, FOUR_IMAGES)
    assert got.answer is None and got.status != "ok"


def test_least_likely_is_no_choice_of_that_option():
    # blink/GPT4o/val_Forensic_Detection_77: "(C) ... the least likely"; it concludes with (A) after "is:"
    reply = (
        'Based on the images provided, the third image (C) appears to be the least likely to be a real '
        'photograph. The colors and lighting in the third image seem overly saturated and unnatural, '
        'which is a common characteristic of digitally altered or generated images. The other three '
        'images (A, B, and D) have more natural lighting and color tones, making them more likely to be '
        'real photographs.\n\nTherefore, the most likely to be a real photograph is:\n(A) the first image'
    )
    assert _read(reply, FOUR_IMAGES).answer == "A"


# ---- class 3: an option named only by its text at the start ----------------------------------------------------

def test_leading_yes_text_for_yes_no_options():
    # blink/OPUS/val_Spatial_Relation_136
    reply = ("Yes, the teddy bear is sitting on top of the diaper cake, which appears to be made out of rolled up "
             "diapers, ribbons, and various baby products arranged in a tiered cake-like structure.")
    assert _read(reply, YES_NO).answer == "A"


def test_leading_option_text_with_a_leading_space():
    # blink/GeminiProVision/val_Relative_Depth_12
    assert _read(" A is closer to the camera.", DEPTH).answer == "A"


def test_chinese_left_names_the_option_left():
    # blink/flamingov2/val_Multi-view_Reasoning_1
    assert _read("左", LEFT_RIGHT).answer == "A"


def test_first_sentence_names_one_option_by_its_text():
    # blink/cogvlm-chat/val_Multi-view_Reasoning_1 (after its leaked </s>)
    assert _read("The camera is moving right when shooting the video.</s>", LEFT_RIGHT).answer == "B"
    # blink/GPT4Turbo/val_Relative_Depth_99: "than point B" is what A is compared with
    assert _read("Point A is closer to the camera than point B.", DEPTH).answer == "A"


def test_a_models_own_numbering_that_contradicts_the_text_commits_to_neither():
    # blink/GPT4o/val_Visual_Similarity_93: GPT-4o numbers the images itself ("The second image (B)", where B is
    # the third image): letter and text name two options (the hand-label rule "letter and text that disagree")
    reply = ("The second image (B) is most similar to the first image. Both images feature a red lipstick with a "
             "gold base, while the third image has a different background and a different lipstick casing.")
    got = _read(reply, SECOND_THIRD)
    assert got.answer is None and got.status == "ambiguous"
    # a key that agrees with its text is one option: the final paragraph of
    # blink/GPT4V-images-concatenated/val_Visual_Similarity_20
    reply = ("Based on these observations, the second image (A) is most similar to the first one because it features "
             "a group of pansies with a very similar color and pattern, and the flowers are presented in a similar "
             "group arrangement.")
    assert _read(reply, SECOND_THIRD).answer == "A"


def test_an_opening_that_lists_every_key_describes_and_the_next_sentence_chooses():
    # blink/GPT4V/val_Relative_Depth_99 (ambiguous before: "labeled A and B" named both)
    assert _read("The image provided shows a ship with two points labeled A and B. Point A is closer to the camera.",
                 DEPTH).answer == "A"
    # blink/llava-v1.5-7b/val_Semantic_Correspondence_120 (ambiguous before)
    reply = ("<s> The reference point is labeled REF, and the choices for the corresponding points are A, B, C, and "
             "D. The corresponding point for the reference point is A.")
    assert _read(reply, POINTS).answer == "A"


def test_an_opening_list_of_keys_followed_by_a_heading_or_a_hedge_chooses_nothing():
    # blink/MiniGPT-4-v2/val_Object_Localization_43: the next line heads the dimensions of each box
    reply = ("To determine which bounding box more accurately localizes and encloses the table, we need to compare the "
             "dimensions of the two bounding boxes, A and B, and check which one has a tighter fit around the "
             "object.\n\n\nThe dimensions of Box A are:\n\n\n* Top: x1 = 200\n* Left: x2 = 30")
    assert _read(reply, BOXES).answer is None
    assert _read("The two points are labeled A and B. It is difficult to determine whether A is closer.",
                 DEPTH).answer is None


def test_a_list_of_every_key_after_the_scene_then_one_option_named_chooses_it():
    # blink/llava-v1.5-7b/val_Visual_Correspondence_152 (ambiguous before: the list is the second sentence)
    reply = ("<s> The point in the first image is labeled REF, and it is the point of reference for the other images. "
             "In the second image, there are four red-circled points, A, B, C, and D. The point that corresponds to "
             "the REF point in the first image is the point A in the second image.")
    assert (_read(reply, POINTS).answer, _read(reply, POINTS).status) == ("A", "ok")
    # blink/llava-internlm2-7b/val_Functional_Correspondence_75 (ambiguous before: the keys listed as quoted texts)
    reply = ("The image on the left shows a blue spoon on a green cloth, while the image on the right shows a white "
             "whisk. The reference point in the image on the left is labeled \"REF.\". The red-circled points in "
             "the image on the right are labeled \"Point A\", \"Point B\", \"Point C\", and \"Point D\". To find "
             "the corresponding point for the reference point in the image on the right, we need to identify the "
             "part of the whisk that serves the same function as the handle of the spoon, which is to hold the "
             "object being brushed or dusted. In this case, the corresponding point for the reference point in the "
             "image on the right is \"Point C\".")
    assert _read(reply, POINTS).answer == "C"


def test_a_list_of_every_key_that_negates_or_is_walked_through_chooses_nothing():
    # blink/OPUS/val_Object_Localization_34: the list rejects both boxes; the next sentence describes each
    reply = ("The image shows a selfie of a man with long hair and a beard taking a mirror photo in a bathroom. "
             "Neither of the bounding boxes A or B accurately enclose a shower curtain. Box A outlines the man's "
             "face, while Box B outlines the man's hand holding a smartphone he is using to take the selfie in the "
             "mirror. There does not appear to be a visible shower curtain in the bathroom based on the limited view "
             "provided in the mirror selfie.")
    assert _read(reply, BOXES).answer is None
    # a walk through the points after the list names no single one
    reply = ("The image shows a whisk. The points are labeled A, B, C, and D. Point A is on the wires. Point B is on "
             "the handle. Point C is at the tip.")
    assert _read(reply, POINTS).answer is None


def test_a_negation_in_the_compared_clause_does_not_negate_the_claim():
    # blink/OPUS/val_Art_Style_66 (ambiguous before: the "not" of the rival's clause vetoed the conclusion)
    reply = ("The second image shares stylistic similarities with Impressionism.\n\nIn contrast, the third image is a "
             "pencil sketch portrait of a man's face. It does not exhibit the key characteristics of Impressionism "
             "seen in the first reference image.\n\nTherefore, of the two options provided, the second image (A) "
             "shares the same Impressionist style as the reference image, while the third image (B) does not.")
    assert _read(reply, SECOND_THIRD).answer == "A"
    # the claim's own negation still vetoes it
    reply = ("The two images differ.\n\nTherefore, the second image does not share the style of the reference, "
             "while the third image (B) is closer.")
    assert _read(reply, SECOND_THIRD).answer != "A"


def test_based_on_the_images_opens_a_conclusion():
    # blink/MiniGPT-4-v2/val_Visual_Similarity_108 (unread before)
    reply = ("Sure, I can help you with that! Based on the images you provided, the most similar image to the first "
             "one is the second image.")
    assert _read(reply, SECOND_THIRD).answer == "A"
    # blink/MiniGPT-4-v2/val_Visual_Similarity_52 (unread before; the discussion mentions only the second image)
    reply = ("Sure, I can help you with that!\n\nBased on the images provided, the second image is the most similar "
             "to the first one.\n\n\nHere's why:\n\n\nThe first image has a busy and crowded background with many "
             "different objects and colors. The second image also has a busy background, but it's not as crowded as "
             "the first image.")
    assert _read(reply, SECOND_THIRD).answer == "A"
    # a hedge after the opener still chooses nothing
    reply = ("Sure!\n\nBased on the images provided, it is difficult to determine whether the second image or the "
             "third image is more similar.")
    assert _read(reply, SECOND_THIRD).answer is None


def test_a_which_clause_that_labels_the_answer_is_part_of_it():
    # blink/llava-v1.5-7b/val_Functional_Correspondence_8 (unread before: ", which" was cut as a reason)
    reply = ('<s> To find the corresponding point for the reference point, we need to consider the action "Pull out a '
             'nail" and identify the objects that can be used for this action. In the given images, the hammer is the '
             'most suitable object for this action. Therefore, the corresponding point for the reference point is the '
             'handle of the hammer, which is labeled with A in the second image.')
    assert _read(reply, POINTS).answer == "A"
    # trap: any other which-clause is still the reason, not the claim
    reply = "Therefore, the corresponding point is Point B, which is closer to the tip than Point A is."
    assert _read(reply, POINTS).answer == "B"


# ---- hedged picks: a hedge that still names one best answer commits to it (docs/reply-labels.md, rule 7) ------

def test_a_pick_after_a_hedge_names_its_option():
    # blink/QwenVLMax/val_Forensic_Detection_120 (the other sentence names the other three as edited)
    reply = (
        'Based on the information provided, it is difficult to determine with certainty which image is most '
        'likely to be a real photograph. However, based on the level of detail and realism in the images, it is '
        'possible that the first image (A) is the most likely to be a real photograph. The other three images '
        'may have been edited or manipulated in some way, as they contain elements that are not typically found '
        'in real photographs, such as the blue suitcase in the second image (B), the multiple suitcases in the '
        'third image (C), and the multiple suitcases and backpacks in the fourth image (D).'
    )
    got = _read(reply, FOUR_IMAGES)
    assert (got.answer, got.status, got.rule) == ("A", "ok", "hedged pick")


def test_a_pick_after_but_in_the_hedging_sentence_names_its_option():
    # blink/GPT4V/val_Relative_Depth_43
    reply = (
        "It's difficult to determine with absolute certainty from this image alone, but point B appears to be "
        "closer to the camera. This is suggested by the perspective that point B seems to be more in focus and "
        "has a clearer outline compared to point A, which looks slightly blurrier and less defined. Focus and "
        "clarity are often indicators of proximity to the camera lens in photography."
    )
    assert _read(reply, DEPTH).answer == "B"


def test_an_educated_guess_after_a_refusal_names_its_option():
    # blink/MiniGPT-4-v2/val_Jigsaw_124
    reply = (
        "Based on the information provided, I can't determine which image is the missing part. Both the second "
        "and third images have different features and details that are not identical to the lower right corner "
        "of the first image. Therefore, I cannot select either option (A) or (B).\n\n\nHowever, if I had to make "
        "an educated guess, I would say that the missing part is more likely to be the second image. This is "
        "because the edges of the second image appear smoother and more refined compared to the third image, "
        "which has more visible artifacts and details. The second image also appears to have a more consistent "
        "tone and color palette, which could help blend in better with the rest of the image.\n\n\nBut again, "
        "without more information or context, it's difficult to accurately determine which image is the "
        "missing part."
    )
    assert _read(reply, SECOND_THIRD).answer == "A"


def test_a_hedged_pick_with_a_conditional_rival_abstains():
    # Trap: blink/GPT4V-images-concatenated/val_Forensic_Detection_89: (D) "if the criteria include natural
    # interaction", (B) "if the criteria are more about artistic composition": two candidates, no best answer.
    reply = (
        "Without additional context, it's challenging to determine which one is \"most likely to be a real "
        "photograph,\" as they all exhibit qualities of genuine photographs. However, if the criteria include "
        "natural interaction and a candid feel, (D) the fourth image might be considered the most authentic "
        "capture of a moment between the person and the horse. If the criteria are more about artistic "
        "composition and dramatic lighting, (B) the second image might be favored.\n\nUltimately, the decision "
        "would depend on the specific rules and criteria of the photography competition."
    )
    got = _read(reply, FOUR_IMAGES)
    assert got.answer is None and got.status != "ok"


def test_a_hedge_whose_answer_names_two_options_abstains():
    # Trap: blink/QwenVLMax/val_Forensic_Detection_126
    reply = (
        'Based on the information provided, it is difficult to determine with certainty which image is most '
        'likely to be a real photograph. However, based on the description of the first image as having a '
        '"fake" look due to the cat\'s position and the second image as having a "blurry" look due to the '
        'cat\'s movement, these two images may be less likely to be real photographs. The third and fourth '
        'images do not have any specific details that suggest they are fake or blurry, so they could '
        'potentially be real photographs. Therefore, the answer is (C) the third image or (D) the fourth image.'
    )
    got = _read(reply, FOUR_IMAGES)
    assert (got.answer, got.status) == (None, "ambiguous")


def test_a_description_after_a_hedge_is_no_pick():
    # Trap: a contrast that describes an option ("has a more symmetrical composition") prefers none
    # (blink/MiniGPT-4-v2/val_Jigsaw_28, shortened).
    reply = (
        "Based on the information provided, I can't tell which image is the missing part. However, the third "
        "image has a more symmetrical composition."
    )
    assert _read(reply, SECOND_THIRD).answer is None


def test_most_candid_and_least_processed_describes_the_pick():
    # blink/GPT4V/val_Forensic_Detection_102: "least" joined to a "most" claim is no rejection
    reply = (
        "Based on the examination of the four images provided:\n\n(A) The first image appears to be a real "
        "photograph.\n\n(B) The second image, while it could be a real photograph, has a slightly more staged or "
        "edited appearance due to the soft focus and lighting.\n\n(D) The fourth image shows a horse with a "
        "saddle, suggesting human interaction.\n\nConsidering all factors, the first image (A) seems the most "
        "candid and least processed, which might make it the most likely to be a real, unaltered photograph. "
        "However, without additional context or information about the images, it's important to note that "
        "appearances can be deceiving, and any of the images could be real or have been edited to some degree."
    )
    assert _read(reply, FOUR_IMAGES).answer == "A"


# ---- "image A" names the key A where the option texts do not name their keys -----------------------------------

def test_image_a_in_a_sentence_names_option_a():
    # blink/OPUS/val_Forensic_Detection_84 (ambiguous before: "images B, C and D" later made every lone capital a
    # candidate)
    reply = ("Based on analyzing the details in the four provided images, I believe image A showing a person diving "
             "to catch a frisbee on a grass field is most likely to be a real photograph, as opposed to a staged or "
             "digitally altered image.\n\nThe lighting, shadows, and motion all appear natural and consistent with "
             "a real action shot captured outdoors.\n\nIn contrast, while images B, C and D also show people engaged "
             "in water activities, certain elements make them seem more likely to be staged shots.\n\nSo in summary, "
             "the spontaneous, unstaged appearance of image A leads me to select it as the one most likely to be a "
             "genuine candid photograph.")
    assert _read(reply, FOUR_IMAGES).answer == "A"


def test_an_image_label_line_names_no_option():
    # blink/MiniGPT-4-v2/val_Visual_Similarity_130's tail: a label line "Image A: [...]" in a list is no pick
    reply = ("Yes, I can help you with that!\n\nThe image (B) is the most similar to the first image (A).\n\n"
             "Here's how I arrived at this answer:\n\n1. Compare the three images side by side:\n"
             "\tImage A: [Original Image 1](http://www.example.com/image1.jpg")
    assert _read(reply, SECOND_THIRD).answer is None
    # and an article "A" before "image" stays an article
    assert _read("A image of a cat is shown. The scene is calm.", FOUR_IMAGES).answer is None


# ---- a hedged pick that calls one option authentic or genuine ---------------------------------------------------

def test_a_hedged_pick_calling_one_option_authentic_commits_to_it():
    # blink/GPT4V/val_Forensic_Detection_42 (ambiguous before: every key in parentheses is discussed above its
    # close, "... it's challenging to definitively determine ... However, the third image (C) has a high level of
    # detail ..., which might suggest a candid and authentic moment captured in a photograph.")
    reply = load_replies()["blink/GPT4V/val_Forensic_Detection_42"].reply
    got = _read(reply, FOUR_IMAGES)
    assert (got.answer, got.rule) == ("C", "hedged pick")
    # trap: "authentic" said of two options after the hedge names neither
    two = reply.replace("However, the third image (C) has", "However, the third image (C) and the fourth image (D) have")
    assert two != reply and _read(two, FOUR_IMAGES).answer is None
