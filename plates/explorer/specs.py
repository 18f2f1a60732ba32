"""A plate's spec in and out of the live plate explorer as text: pretty JSON (the download and the paste box),
a pasted or uploaded spec checked against the :class:`~plates.explorer.policy.Policy` before it is built, the
Plate tab's controls on such a spec, and a compact share code (URL-safe base64 of zlib-compressed JSON,
`plates.explorer.codes`) so a plate travels in a URL query string.
"""

from __future__ import annotations

import json

from plates.explorer.codes import pack_json, page_link, unpack_bytes
from plates.explorer.plate import Controls, check_policy, controls_to_spec
from plates.explorer.policy import MAX_SPEC_BYTES, Policy
from plates.stimuli.ishihara.plate import PlateSpec

#: Query-string parameter carrying a share code.
QUERY_PARAM = "spec"
#: The caps a spec meets when no policy is given: private mode's, with any size PlateSpec takes.
_PRIVATE_CAPS = Policy(max_plate_size=4096, max_text_chars=1000)


def spec_to_json(spec: PlateSpec) -> str:
    """The spec as pretty JSON (what the download and the paste box hold).

    Parameters
    ----------
    spec : PlateSpec
        The plate.

    Returns
    -------
    str
        JSON, indented 2, keys sorted; colours as sRGB 0-255.
    """
    return json.dumps(json.loads(spec.to_json()), indent=2, sort_keys=True)


def spec_from_controls(policy: Policy, base_json: str | None, *vals) -> PlateSpec:
    """The Plate tab's control values as a spec, on the pasted or linked spec when there is one.

    Parameters
    ----------
    policy : Policy
        This server's limits.
    base_json : str or None
        The pasted or linked spec's JSON; its fields the controls do not show are kept. None or empty: none.
    *vals
        The control values in `plates.explorer.plate.Controls` field order.

    Returns
    -------
    PlateSpec
        The validated spec.

    Raises
    ------
    ValueError
        Naming a bad value (in the base spec or the controls) and what is allowed.
    """
    base = spec_from_text(base_json, policy) if base_json else None
    return controls_to_spec(Controls(*vals), policy, base=base)


def spec_from_text(text: str | bytes, policy: Policy | None = None) -> PlateSpec:
    """Parse a pasted or uploaded spec (JSON text or bytes; never a path).

    With a public ``policy`` the font must be a name and the size within the cap, checked on the raw JSON
    before
    any PlateSpec is built (building one opens the font file). The text's length and each colour list's length
    are
    capped by ``policy`` (without one: the private caps, with plate sizes up to PlateSpec's own).

    Parameters
    ----------
    text : str or bytes
        The spec's JSON (bytes: UTF-8, an uploaded file).
    policy : Policy or None
        This server's limits; None for the private caps.

    Returns
    -------
    PlateSpec
        The spec.

    Raises
    ------
    ValueError
        When the spec is too long, not UTF-8, empty, not JSON, refused by the policy (font, size, text length,
        colours), not a plate's fields, or a plate PlateSpec refuses, saying which.
    """
    limit = policy.max_spec_chars if policy is not None else MAX_SPEC_BYTES
    if isinstance(text, bytes):
        if len(text) > limit:
            raise ValueError(f"spec file is {len(text)} bytes; allowed: at most {limit} bytes of JSON")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("spec file is not UTF-8 text; allowed: a JSON spec saved by the explorer") from None
    if not isinstance(text, str) or not text.strip():
        raise ValueError("spec is empty; paste the JSON of a spec (the explorer's 'spec JSON' download)")
    if len(text) > limit:
        raise ValueError(f"spec is {len(text)} characters; allowed: at most {limit} characters of JSON "
                         "(a spec the explorer saves is a few hundred)")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"spec is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    if isinstance(raw, dict):  # caps first: building a spec costs the product of its colour lists
        check_policy(raw.get("font", PlateSpec.__dataclass_fields__["font"].default), raw.get("size"),
                     raw.get("text"), policy or _PRIVATE_CAPS,
                     colours=(raw.get("foreground"), raw.get("background")))
    try:
        return PlateSpec.from_json(text)
    except (TypeError, KeyError) as exc:
        raise ValueError(f"spec JSON does not describe a plate: {exc}") from None


def encode_spec(spec: PlateSpec) -> str:
    """Compact share code of a spec.

    Parameters
    ----------
    spec : PlateSpec
        The plate.

    Returns
    -------
    str
        URL-safe base64 (no padding) of zlib-compressed, minified JSON of the spec
        (`plates.explorer.codes.pack_json`).
    """
    return pack_json(json.loads(spec.to_json()))


def decode_spec(code: str, policy: Policy | None = None) -> PlateSpec:
    """Share code (from :func:`encode_spec`) -> PlateSpec.

    Parameters
    ----------
    code : str
        The code after ``?spec=``.
    policy : Policy or None
        This server's limits (:func:`spec_from_text`).

    Returns
    -------
    PlateSpec
        The spec.

    Raises
    ------
    ValueError
        Saying what is wrong with the code (not base64, not zlib, too long, cut short, expanding too far) or
        with the spec it holds.
    """
    try:
        raw = unpack_bytes(code, MAX_SPEC_BYTES, "share code")
    except ValueError as exc:
        raise ValueError(f"{exc}; allowed: the code after ?{QUERY_PARAM}=") from None
    return spec_from_text(raw, policy)


def share_link(spec: PlateSpec, page_url: str | None = None) -> str:
    """The link that reopens ``spec``.

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    page_url : str or None
        The page's URL as the browser sees it.

    Returns
    -------
    str
        The page's URL (scheme, host, path; its own query dropped) with ``?spec=<code>``, or the bare query
        string (a relative link) when the page URL is unknown or not http(s).
    """
    return page_link(page_url, {QUERY_PARAM: encode_spec(spec)})
