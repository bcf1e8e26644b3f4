"""What the CLI prints: the results table, the check reports, the workflow's output.

Each module draws one kind of output from the models it is given and reads nothing
else, so the terminal, JSON, Markdown and JUnit forms of one result never disagree.
"""
