"""The Model tab's state as a share link, apart from any widget.

A link ``?spec=<plate code>&ask=<model code>`` reopens the plate (`plates.explorer.specs.encode_spec`) and every
control of the Model tab: the model (kind, name, base URL), the models compared beside it, the prompt (and its
edited text), and the condition the model receives (size, grayscale, hue shift, CVD view and severity,
variant). :class:`ModelView` is that state; :func:`encode_view` / :func:`decode_view` pack it
(`plates.explorer.codes`).

What a link never carries: an API key (there is no field for one, and any text that spells the session's key
is cut out before packing), and a base URL's credentials (``user:password@``), query string or fragment
(:func:`shareable_url`), where a token might sit. Opening a link validates it like typed input: in public mode
a base URL or Hugging Face id outside the allow-lists is refused with the reason, so a link cannot point the
server anywhere a visitor could not.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from urllib.parse import urlsplit, urlunsplit

from plates.conditions import CVD_VIEWS, Condition
from plates.explorer import compare
from plates.explorer import models as em
from plates.explorer.backends import ModelChoice
from plates.explorer.codes import pack_json, page_link, unpack_json
from plates.explorer.policy import Policy
from plates.explorer.specs import QUERY_PARAM, encode_spec
from plates.secrets import redact
from plates.stimuli.ishihara.plate import PlateSpec
from plates.validation import is_number

__all__ = ["VIEW_PARAM", "ModelView", "decode_view", "encode_view", "share_link", "shareable_url"]

#: Query-string parameter carrying the Model tab's state.
VIEW_PARAM = "ask"
#: Largest decompressed Model-tab state (bytes): an 8,000-character prompt and 8 compared models fit.
MAX_VIEW_BYTES = 32768


def shareable_url(url: str) -> str:
    """``url`` without what may be secret: the ``user:password@`` part, the query string and the fragment.

    Parameters
    ----------
    url : str
        A base URL as typed.

    Returns
    -------
    str
        Scheme, host (IPv6 in brackets), port and path, trailing ``/`` dropped; ``""`` for an empty URL.

    Examples
    --------
    >>> shareable_url("https://me:sk-123@host.example:8443/v1/?api_key=sk-123#x")
    'https://host.example:8443/v1'
    >>> shareable_url("")
    ''
    """
    url = (url or "").strip()
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")).rstrip("/")


@dataclass(frozen=True)
class ModelView:
    """What the Model tab shows, as plain values.

    Attributes
    ----------
    kind : str
        The model kind (`plates.explorer.backends.MODEL_KINDS`).
    model : str
        The Hugging Face id or API model name.
    base_url : str
        The OpenAI-compatible endpoint.
    compare : str
        The comparison box's text (one model a line, `plates.explorer.compare.parse_models`).
    prompt_name : str
        The prompt by name.
    prompt_text : str or None
        Its edited text; None: the template as registered.
    size : int
        Image side sent, px; 0 = as rendered.
    grayscale : bool
        Whether the image is sent in grayscale.
    hue_shift : float
        Hue rotation, degrees.
    cvd : str
        CVD view (`plates.conditions.CVD_VIEWS`).
    cvd_severity : float
        0-1 (Machado et al. 2009).
    variant : str
        The plate variant sent.
    """

    kind: str = "baseline"
    model: str = ""
    base_url: str = ""
    compare: str = ""
    prompt_name: str = "cbe-open"
    prompt_text: str | None = None
    size: int = 0
    grayscale: bool = False
    hue_shift: float = 0.0
    cvd: str = "none"
    cvd_severity: float = 1.0
    variant: str = "standard"

    @classmethod
    def from_widgets(cls, kind, hf_id, api_model, base_url, prompt_name, prompt_text, size, grayscale, hue, cvd,
                     severity, variant, compare_text="") -> ModelView:
        """The Model tab's widget values (in this order) as a view.

        Parameters
        ----------
        kind : str
            The model kind radio.
        hf_id, api_model : str
            The Hugging Face id box and the API model name box; the one of ``kind`` is the model.
        base_url : str
            The base-URL box (kept for ``openai`` only).
        prompt_name : str
            The prompt dropdown.
        prompt_text : str
            The prompt box; kept only where it differs from the named prompt's template.
        size : int or float or None
            The image-size slider, px (0 or None: as rendered).
        grayscale : bool
            The grayscale checkbox.
        hue : float or None
            The hue-shift slider, degrees.
        cvd : str or None
            The CVD view dropdown.
        severity : float or None
            The CVD severity slider, 0-1 (None: 1).
        variant : str or None
            The plate-variant dropdown.
        compare_text : str
            The comparison box.

        Returns
        -------
        ModelView
            The view (not validated: :meth:`validate`).
        """
        text = prompt_text if prompt_text and prompt_text.strip() else None
        if text is not None and prompt_name in em.PROMPTS and text == em.prompt_template_text(prompt_name):
            text = None
        return cls(kind=kind, model=(hf_id if kind == "hf" else api_model if kind == "openai" else "") or "",
                   base_url=(base_url or "") if kind == "openai" else "", compare=compare_text or "",
                   prompt_name=prompt_name, prompt_text=text, size=int(size or 0), grayscale=bool(grayscale),
                   hue_shift=float(hue or 0.0), cvd=cvd or "none",
                   cvd_severity=float(1.0 if severity is None else severity), variant=variant or "standard")

    def widgets(self) -> tuple:
        """The Model tab's widget values for this view, in :meth:`from_widgets`' order."""
        return (self.kind, self.model if self.kind == "hf" else "", self.model if self.kind == "openai" else "",
                self.base_url, self.prompt_name,
                em.prompt_template_text(self.prompt_name) if self.prompt_text is None else self.prompt_text,
                self.size, self.grayscale, self.hue_shift, self.cvd, self.cvd_severity, self.variant, self.compare)

    def choice(self) -> ModelChoice:
        """The model this view asks (`plates.explorer.backends.ModelChoice`)."""
        return ModelChoice(self.kind, self.model, self.base_url)

    def condition(self) -> Condition:
        """The viewing condition the model receives (`plates.conditions.Condition`)."""
        return Condition(size=self.size or None, grayscale=self.grayscale, hue_shift=self.hue_shift,
                         cvd=self.cvd, cvd_severity=self.cvd_severity)

    def ask(self, policy: Policy) -> em.Ask:
        """The question this view asks, validated under ``policy``.

        Parameters
        ----------
        policy : Policy
            This server's limits.

        Returns
        -------
        Ask
            `plates.explorer.models.Ask` with this view's prompt, condition and variant.

        Raises
        ------
        ValueError
            Naming a bad prompt, variant, prompt length or image size.
        """
        ask = em.Ask(prompt_name=self.prompt_name, prompt_text=self.prompt_text, condition=self.condition(),
                     variant=self.variant)
        ask.validate(policy)
        return ask

    def validate(self, policy: Policy) -> ModelView:
        """This view checked as typed input would be.

        Parameters
        ----------
        policy : Policy
            This server's limits (public mode: allow-lists only).

        Returns
        -------
        ModelView
            The view with the model and base URL normalised.

        Raises
        ------
        ValueError
            Naming the value and what is allowed: a field of the wrong type, an unknown CVD view, a refused
            model or
            compared model, a bad prompt or condition.
        """
        for f in fields(self):
            value, default = getattr(self, f.name), f.default
            if default is None:
                ok = value is None or isinstance(value, str)
            elif type(default) in (int, float):  # a number field: never a bool, an int where the default is
                ok = is_number(value, integer=type(default) is int) and math.isfinite(value)
            else:  # a bool or a str
                ok = isinstance(value, type(default))
            if not ok:
                raise ValueError(f"{f.name} {value!r:.60} is not allowed; allowed: a "
                                 f"{'str or null' if default is None else type(default).__name__}")
        if self.cvd not in CVD_VIEWS:
            raise ValueError(f"CVD view {self.cvd!r} is unknown; allowed: {', '.join(CVD_VIEWS)}")
        choice = self.choice().validate(policy)
        compare.parse_models(self.compare, policy)
        self.ask(policy)
        return replace(self, model=choice.model, base_url=choice.base_url)


def encode_view(view: ModelView, secrets: tuple[str | None, ...] = ()) -> str:
    """The Model-tab code of ``view``, never carrying a secret.

    Parameters
    ----------
    view : ModelView
        The Model tab's state.
    secrets : tuple of str or None
        The session's key(s): cut out of every text.

    Returns
    -------
    str
        The code (`plates.explorer.codes.pack_json`); its base URLs (the model's and each compared one's)
        through
        :func:`shareable_url`.
    """
    lines = []
    for line in view.compare.splitlines():
        words = line.split()
        if words[:1] == ["openai"] and len(words) == 3:
            words[2] = shareable_url(words[2])
        lines.append(" ".join(words))
    safe = replace(view, base_url=shareable_url(view.base_url), compare="\n".join(lines))
    values = {k: redact(v, secrets, min_length=4) if isinstance(v, str) else v for k, v in asdict(safe).items()}
    return pack_json(values)


def decode_view(code: str, policy: Policy) -> ModelView:
    """The :class:`ModelView` a code carries, validated under ``policy`` (:meth:`ModelView.validate`).

    Parameters
    ----------
    code : str
        The code after ``?ask=``.
    policy : Policy
        This server's limits.

    Returns
    -------
    ModelView
        The validated view.

    Raises
    ------
    ValueError
        Saying what is wrong: not a code the explorer made, not an object, unknown fields, or a refused value.
    """
    value = unpack_json(code, MAX_VIEW_BYTES, "the link's model code")
    if not isinstance(value, dict):
        raise ValueError("the link's model code is not an object; allowed: a code the explorer made")
    known = {f.name for f in fields(ModelView)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise ValueError(f"the link's model code has unknown fields {unknown}; allowed: {', '.join(sorted(known))}")
    return ModelView(**value).validate(policy)


def share_link(spec: PlateSpec, view: ModelView, page_url: str | None = None,
               secrets: tuple[str | None, ...] = ()) -> str:
    """The link that reopens the plate of ``spec`` and the Model tab as ``view`` shows it.

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    view : ModelView
        The Model tab's state.
    page_url : str or None
        The page's URL; None or not http(s): a relative link.
    secrets : tuple of str or None
        The session's key(s), never carried.

    Returns
    -------
    str
        ``?spec=...&ask=...`` on the page's URL.
    """
    return page_link(page_url, {QUERY_PARAM: encode_spec(spec), VIEW_PARAM: encode_view(view, secrets)})
