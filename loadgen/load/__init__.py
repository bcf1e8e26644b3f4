"""The load a playbook describes, shared by both runners: key values drawn from the
playbook's distributions, the arrival schedule, the scenario interpreter, the SDK retry
policy, request bodies and what each write costs, and the items seeded before a run.
Above the format and the results; below the simulation, the live instrument and the
analysis.

The scenario interpreter is compiled with the emulator when a build exists
(emulator/native.py COMPILED_ELSEWHERE), so this package puts the build first on its path.
"""

from emulator.native import activate

activate(__name__, __path__)
