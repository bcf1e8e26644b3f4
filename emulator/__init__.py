"""hotbench's emulator: the capacity model, its simulation and its DynamoDB endpoint.

Runs compiled by mypyc when a build of the current sources exists (emulator/native.py).
"""

from emulator.native import activate

activate(__name__, __path__)
