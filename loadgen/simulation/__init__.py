"""The simulation: a playbook's load through the capacity model in virtual time (the
open-loop engine, the closed-loop engine, and the item collections they grow). Above the
load; beside, never importing, the live instrument.

Compiled with the emulator when a build of the current sources exists
(emulator/native.py COMPILED_ELSEWHERE), so this package puts the build first on its path.
"""

from emulator.native import activate

activate(__name__, __path__)
