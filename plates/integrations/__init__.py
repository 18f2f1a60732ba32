"""Export to and import from the ecosystem: Hugging Face datasets, lmms-eval, inspect_ai and VLMEvalKit.

Every exporter reads the runner's own plan (`plates.integrations.rows.export_rows` over
`plates.runs.plan.plan` and `plates.runs.builder.prepared`): an exported set holds exactly the rows `plates run`
asks with the same arguments, the images as the PNG bytes a model is sent, and the question text as sent. Every
harness task scores with the task's own `plates.tasks.base.Task.score`, rebuilt from the row's ``question_json``.
The harnesses themselves are optional extras (``hub``, ``inspect``); none is imported by the default install.
"""
