"""Tiny random image-text-to-text models, their tokenizers and processors, built offline in a test (no hub).

Two architectures, so "any image-text-to-text model" is tested on more than one processor path:

- ``llava``: ``LlavaForConditionalGeneration`` (a 2-layer CLIP vision tower on 32x32 images in 8x8 patches, a
  projector, a 2-layer Llama) with a PIL CLIP image processor;
- ``idefics3`` (the SmolVLM family): ``Idefics3ForConditionalGeneration`` (a 2-layer SigLIP-style tower, pixel
  shuffle, a 2-layer Llama) with a PIL Idefics3 image processor that splits images into tiles.

Each has a byte-level BPE tokenizer trained with the ``tokenizers`` library on a few sentences (so any text
encodes) and a small chat template. Seeded: the same seed gives the same weights. Saved with
``save_pretrained``; loads back through ``AutoProcessor`` and ``AutoModelForImageTextToText`` like any hub
model. Well under 1 MB on disk.
"""

from __future__ import annotations

from pathlib import Path

ARCHITECTURES = ("llava", "idefics3")

LLAVA_SPECIAL_TOKENS = ("<pad>", "<s>", "</s>", "<unk>", "<image>", "<|user|>", "<|assistant|>", "<|end|>")
IDEFICS3_SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<end_of_utterance>", "<fake_token_around_image>",
                           "<image>", "<global-img>", *(f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)))

LLAVA_CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<image>{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|end|>"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
IDEFICS3_CHAT_TEMPLATE = (
    "<|im_start|>{% for m in messages %}{{ m['role'] | capitalize }}:"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<image>{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "<end_of_utterance>\n{% endfor %}{% if add_generation_prompt %}Assistant:{% endif %}"
)

_CORPUS = (
    "What number do you see in the image? Answer with the number only.",
    "Is the number 12 in the image? Answer yes or no.",
    "Which option is correct? (A) 12 (B) 17 (C) 21 (D) 74. Answer with the letter.",
    "0 1 2 3 4 5 6 7 8 9 10 12 17 21 42 74 99 yes no The answer is",
)


def build_tokenizer(special_tokens=LLAVA_SPECIAL_TOKENS, *, vocab_size: int = 320, **roles: str):
    """A byte-level BPE tokenizer over a few sentences plus ``special_tokens``, as PreTrainedTokenizerFast.

    ``roles`` names the special tokens' roles (bos_token="<s>", eos_token="</s>", pad_token="<pad>", ...).
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special_tokens), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(list(_CORPUS) * 3, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, **roles)


def _text_config(tokenizer, bos: str, eos: str, pad: str) -> dict:
    """A 2-layer Llama, 32 wide; a large initializer range makes the logits peaky, so greedy choices are not
    near-ties that float rounding (padded vs unpadded) could flip."""
    ids = tokenizer.convert_tokens_to_ids
    return dict(model_type="llama", vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=1024,
                initializer_range=0.2, bos_token_id=ids(bos), eos_token_id=ids(eos), pad_token_id=ids(pad))


def _llava():
    from transformers import (
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    tokenizer = build_tokenizer(LLAVA_SPECIAL_TOKENS, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                unk_token="<unk>", extra_special_tokens={"image_token": "<image>"})
    image_processor = CLIPImageProcessorPil(size={"shortest_edge": 32}, do_center_crop=True,
                                            crop_size={"height": 32, "width": 32})
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=tokenizer, patch_size=8,
                               vision_feature_select_strategy="default", num_additional_image_tokens=1,
                               chat_template=LLAVA_CHAT_TEMPLATE)
    text = _text_config(tokenizer, "<s>", "</s>", "<pad>")
    text.pop("model_type")
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                              image_size=32, patch_size=8, projection_dim=32)
    config = LlavaConfig(vision_config=vision, text_config=LlamaConfig(**text), vision_feature_layer=-1,
                         vision_feature_select_strategy="default",
                         image_token_id=tokenizer.convert_tokens_to_ids("<image>"))
    return LlavaForConditionalGeneration, config, processor, tokenizer


def _idefics3():
    from transformers import Idefics3Config, Idefics3ForConditionalGeneration, Idefics3Processor
    from transformers.models.idefics3.image_processing_pil_idefics3 import Idefics3ImageProcessorPil

    tokenizer = build_tokenizer(IDEFICS3_SPECIAL_TOKENS, vocab_size=360, bos_token="<|im_start|>",
                                eos_token="<end_of_utterance>", pad_token="<|endoftext|>")
    # 64 px at most, tiles of 32 px (a 2x2 grid plus the global image); 32 / 8 = 4x4 patches, shuffled by 2 -> 4
    image_processor = Idefics3ImageProcessorPil(size={"longest_edge": 64}, max_image_size={"longest_edge": 32},
                                                do_image_splitting=True)
    processor = Idefics3Processor(image_processor=image_processor, tokenizer=tokenizer, image_seq_len=4,
                                  chat_template=IDEFICS3_CHAT_TEMPLATE)
    pad = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    config = Idefics3Config(
        text_config=_text_config(tokenizer, "<|im_start|>", "<end_of_utterance>", "<|endoftext|>"),
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                           image_size=32, patch_size=8),
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"), scale_factor=2, pad_token_id=pad)
    return Idefics3ForConditionalGeneration, config, processor, tokenizer


def build_tiny_vlm(path: Path | str, *, arch: str = "llava", seed: int = 0) -> Path:
    """Write a tiny random model of ``arch`` (one of ARCHITECTURES) + its processor to ``path``; return it."""
    import torch

    builders = {"llava": _llava, "idefics3": _idefics3}
    if arch not in builders:
        raise ValueError(f"arch {arch!r} is not allowed; allowed: {', '.join(ARCHITECTURES)}")
    path = Path(path)
    model_class, config, processor, tokenizer = builders[arch]()
    torch.manual_seed(seed)
    model = model_class(config).eval()
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(path)
    processor.save_pretrained(path)
    return path
