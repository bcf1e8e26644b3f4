"""hotbench's load generator: the playbook format, key generation, and the two runners of a
playbook, live (loadgen/live/playbook_run.py) and in virtual time (loadgen/simulation/simulate.py).

The simulation runner, the closed-loop engine, its item-collection tracker and the
scenario interpreter are compiled with the emulator when a build of the current sources
exists (emulator/native.py COMPILED_ELSEWHERE); importing `emulator.native` here is the
one-way dependency loadgen -> emulator, not the reverse.
"""

from emulator.native import activate

activate(__name__, __path__)
