"""Chain-of-thought effects (ColorBench §3.2 Finding 3, Table 4)."""

from plates.dashboard import common

common.chart_page(
    "chain_of_thought",
    "Chain of thought",
    "Δ accuracy = Acc_CoT − Acc_plain per model over the same items, for every prompt run with its `-cot` "
    "variant (ColorBench Table 4: +4.35 points on average; Color Blindness +8.2 for GPT-4o, +10.4 for "
    "Gemini-2-flash, drawn in grey at the prompts that ask that task).",
    lambda view: common.condition_control(view, "cot_condition", page="chain_of_thought"),
)
