"""The live instrument: a playbook's load sent to a DynamoDB endpoint by paced workers
that never retry (the coordinator, the fleets that start workers, the start barrier, the
measuring loops, the HTTP client and signer, the results table they report to). Above the
load; beside, never importing, the simulation."""
