"""The playbook format: what a playbook says (tables, load, phases, workloads, criteria),
parsed and validated with errors that name the file, line and field. Imports nothing else
of loadgen."""
