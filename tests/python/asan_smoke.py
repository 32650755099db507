"""Under AddressSanitizer: import the module, simulate one job, read its timeline and JSON."""

import json

import distsim

result = distsim.simulate(distsim.Job(model="gpt2-345m", tp=2, pp=2, dp=1))
assert json.loads(result.to_json())["iteration_time_s"] == result.iteration_time_s > 0
assert result.timeline(rank=0)
try:
    distsim.Job(tp=0)
except distsim.InputError as error:
    assert str(error) == "--tp: expected a positive integer (1 to 2147483647), got '0'"
else:
    raise AssertionError("tp=0 was accepted")
print("1 passed, 0 failed")
