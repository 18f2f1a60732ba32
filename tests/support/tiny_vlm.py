"""Tiny random image-text-to-text models, their tokenizers and processors, built offline in a test (no hub).

One architecture per family the hf backend supports, so "any image-text-to-text model" is tested on each
processor path:

- ``llava``: ``LlavaForConditionalGeneration`` (a 2-layer CLIP vision tower on 32x32 images in 8x8 patches, a
  projector, a 2-layer Llama) with a PIL CLIP image processor;
- ``idefics3`` (the SmolVLM family): ``Idefics3ForConditionalGeneration`` (a 2-layer SigLIP-style tower, pixel
  shuffle, a 2-layer Llama) with a PIL Idefics3 image processor that splits images into tiles;
- ``paligemma``: ``PaliGemmaForConditionalGeneration`` (a 2-layer SigLIP tower, a 2-layer Gemma) with no chat
  template: its prompt format is PaliGemma's task prefix;
- ``florence2``: ``Florence2ForConditionalGeneration`` (a one-block-per-stage DaViT tower, a 1+1-layer BART
  encoder-decoder) with no chat template: its prompt format is a task token. Its generation_config.json asks
  for beam search and an n-gram ban, as the published checkpoints' do;
- ``remote-code``: the LLaVA model under a model type transformers does not know, whose config and model
  classes live in a Python file inside the folder (``auto_map``), as moondream2's or MiniCPM-V's do: it loads
  only with ``trust_remote_code=True``.

Each has a byte-level BPE tokenizer trained with the ``tokenizers`` library on a few sentences (so any text
encodes) and, for the chat families, a small chat template. Seeded: the same seed gives the same weights. Saved with
``save_pretrained``; loads back through ``AutoProcessor`` and ``AutoModelForImageTextToText`` like any hub
model. Well under 1 MB on disk.
"""

from __future__ import annotations

from pathlib import Path

ARCHITECTURES = ("llava", "idefics3", "paligemma", "florence2", "remote-code")

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


def _paligemma():
    from transformers import (
        GemmaConfig,
        PaliGemmaConfig,
        PaliGemmaForConditionalGeneration,
        PaliGemmaProcessor,
        SiglipVisionConfig,
    )
    from transformers.models.siglip.image_processing_pil_siglip import SiglipImageProcessorPil

    tokenizer = build_tokenizer(("<pad>", "<bos>", "<eos>", "<unk>", "<image>"), bos_token="<bos>",
                                eos_token="<eos>", pad_token="<pad>", unk_token="<unk>",
                                extra_special_tokens={"image_token": "<image>"})
    image_processor = SiglipImageProcessorPil(size={"height": 32, "width": 32})
    image_processor.image_seq_length = 16  # (32 / 8) ** 2 patches
    processor = PaliGemmaProcessor(image_processor=image_processor, tokenizer=tokenizer)  # adds <loc>/<seg> tokens
    text = _text_config(tokenizer, "<bos>", "<eos>", "<pad>")
    text.update(model_type="gemma", num_key_value_heads=1, head_dim=16)
    vision = SiglipVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                                image_size=32, patch_size=8, projection_dim=32)
    config = PaliGemmaConfig(text_config=GemmaConfig(**{k: v for k, v in text.items() if k != "model_type"}),
                             vision_config=vision, image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
                             projection_dim=32)
    return PaliGemmaForConditionalGeneration, config, processor, tokenizer


def _florence2():
    from transformers import (
        BartConfig,
        Florence2Config,
        Florence2ForConditionalGeneration,
        Florence2Processor,
        Florence2VisionConfig,
    )
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    tokenizer = build_tokenizer(("<pad>", "<s>", "</s>", "<unk>", "<image>", "<OCR>"), bos_token="<s>",
                                eos_token="</s>", pad_token="<pad>", unk_token="<unk>",
                                extra_special_tokens={"image_token": "<image>"})
    image_processor = CLIPImageProcessorPil(size={"height": 64, "width": 64}, do_center_crop=False)
    image_processor.image_seq_length = 5  # (64 / 32) ** 2 features + the pooled one
    processor = Florence2Processor(image_processor=image_processor, tokenizer=tokenizer)
    ids = tokenizer.convert_tokens_to_ids
    text = BartConfig(vocab_size=len(tokenizer), d_model=32, encoder_layers=1, decoder_layers=1,
                      encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                      max_position_embeddings=256, init_std=0.2, bos_token_id=ids("<s>"), eos_token_id=ids("</s>"),
                      pad_token_id=ids("<pad>"), decoder_start_token_id=ids("</s>"))
    vision = Florence2VisionConfig(depths=(1, 1, 1, 1), embed_dim=(8, 16, 32, 32), num_heads=(1, 1, 2, 2),
                                   num_groups=(1, 1, 2, 2), window_size=2, projection_dim=32, drop_path_rate=0.0)
    config = Florence2Config(text_config=text, vision_config=vision, image_token_id=ids("<image>"))
    return Florence2ForConditionalGeneration, config, processor, tokenizer


#: the Python file a remote-code model carries in its folder (transformers imports it with trust_remote_code)
REMOTE_CODE_MODULE = """from transformers import LlavaConfig, LlavaForConditionalGeneration


class PlatesTinyConfig(LlavaConfig):
    model_type = "plates_tiny"


class PlatesTinyForCausalLM(LlavaForConditionalGeneration):
    config_class = PlatesTinyConfig
"""


def _remote_code(path: Path, llava) -> None:
    """Save ``llava``'s weights at ``path`` as a remote-code model (see the module doc): the classes come from a
    Python file in the folder, imported here from that file, as transformers will import it."""
    import importlib.util
    import json

    source = path / "modeling_plates_tiny.py"
    source.write_text(REMOTE_CODE_MODULE)
    spec = importlib.util.spec_from_file_location("modeling_plates_tiny", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    settings = {k: v for k, v in llava.config.to_dict().items() if k != "model_type"}
    remote = module.PlatesTinyForCausalLM(module.PlatesTinyConfig(**settings)).eval()
    remote.load_state_dict(llava.state_dict())  # the same modules under the same names
    remote.generation_config = llava.generation_config
    remote.save_pretrained(path)
    config = json.loads((path / "config.json").read_text())
    config["auto_map"] = {"AutoConfig": "modeling_plates_tiny.PlatesTinyConfig",
                          "AutoModelForCausalLM": "modeling_plates_tiny.PlatesTinyForCausalLM"}
    (path / "config.json").write_text(json.dumps(config, indent=2))


def build_tiny_vlm(path: Path | str, *, arch: str = "llava", seed: int = 0) -> Path:
    """Write a tiny random model of ``arch`` (one of ARCHITECTURES) + its processor to ``path``; return it."""
    import torch

    builders = {"llava": _llava, "idefics3": _idefics3, "paligemma": _paligemma, "florence2": _florence2,
                "remote-code": _llava}
    if arch not in builders:
        raise ValueError(f"arch {arch!r} is not allowed; allowed: {', '.join(ARCHITECTURES)}")
    path = Path(path)
    model_class, config, processor, tokenizer = builders[arch]()
    torch.manual_seed(seed)
    model = model_class(config).eval()
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    if arch == "florence2":  # as microsoft/Florence-2-base's generation_config.json
        model.generation_config.update(num_beams=3, no_repeat_ngram_size=3, early_stopping=False)
    processor.save_pretrained(path)
    if arch == "remote-code":
        _remote_code(path, model)
    else:
        model.save_pretrained(path)
    return path
