"""`hotbench import`: a table, its auto scaling, its traffic per minute and its hot keys,
read from an account (or a saved snapshot of one) into a typed result.

I/O at the edges: `aws_calls` (boto3, retries), `snapshot` (record, replay),
`anonymize`, `permissions` (the check first), `account_reader` (the calls, in order);
pure in between: `time_window`, `metric_queries` (which series, laid on the periods),
`build_import` (answers -> `import_result`), `summary` (what is printed),
`playbook_draft` (the playbook that replays the window, and the launch what-ifs),
`recorded` (the recorded minutes kept beside it) and `minute_comparison` (a replay beside the
recording). `import_run` ties them together for the command
(console/commands/import_account.py; console/commands/backtest.py). docs/import.md says
what is read and why.
"""
