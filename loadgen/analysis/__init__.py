"""What is made of a playbook and its results without sending a request: the advisor's
arithmetic, the criteria's verdicts, comparisons of two results, and the calibration that
fits the model's parameters (which runs the simulation). The top of loadgen but for
runners.py."""
