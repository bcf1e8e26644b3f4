"""The operator console: a Textual app over the workflow (console.workflow).

It adds no logic of its own: every action is a workflow step run on a Textual thread
worker, every number on screen comes from the workflow's watch stream, tally, plan or
result (docs/console.md). `backend.py` is the one place that calls the workflow, so a
test can hand the app fixed data instead.
"""
