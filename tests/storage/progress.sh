#!/usr/bin/env bash
# --progress off a terminal (stderr is a file here): each long step (building the program, by
# groups of devices; running it; writing the trace; validate's runs; search's checks, lower bounds and candidates; a sweep's
# points) prints
# lines of the form
# "distsim: STEP: DONE/TOTAL UNIT (P%) after S s" to stderr and ends with its 100% line, while
# stdout and the trace are the same bytes as without it. Without the flag stderr stays empty.
# A trace of every one of 1024 ranks suggests the replica trace, with both sizes.
# Usage: progress.sh DISTSIM SCRATCH_DIR FIXTURES
set -u
distsim=$(realpath "$1")
scratch=$2
fixtures=$(realpath "$3")
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
cd "$scratch" || exit 1
failed=0
fail() {
  echo "$*"
  failed=1
}
# Runs the command twice, with and without --progress, and checks stdout (and FILE, when given,
# written to plain.FILE and progress.FILE by a @ in the arguments) byte for byte.
compare_runs() {
  local name=$1
  shift
  "$distsim" "${@//@/plain.out}" >plain.stdout 2>plain.stderr || fail "$name without --progress: exit $?"
  "$distsim" "${@//@/progress.out}" --progress >progress.stdout 2>progress.stderr || fail "$name with --progress: exit $?"
  cmp -s plain.stdout progress.stdout || fail "$name: stdout differs with --progress"
  [[ ! -e plain.out ]] || cmp -s plain.out progress.out || fail "$name: the output file differs with --progress"
  [[ ! -s plain.stderr ]] || fail "$name: stderr without --progress: $(cat plain.stderr)"
  rm -f plain.out progress.out
}
# The last line of STEP in progress.stderr: DONE equals TOTAL, 100%.
expect_final_line() {
  local step=$1 unit=$2
  grep -Eq "^distsim: $step: ([0-9]+)/\\1 $unit \\(100%\\) after [0-9]+ s$" progress.stderr ||
    fail "no final progress line for '$step' ($unit): $(cat progress.stderr)"
  local other
  other=$(grep -Ev "^distsim: [^:]+: [0-9]+/[0-9]+ [a-z]+ \\([0-9]+%\\) after [0-9]+ s$" progress.stderr)
  [[ -z $other ]] || fail "stderr lines not of the progress form: $other"
}

job=(--model gpt2-345m --gpu a40 --nodes 1 --gpus-per-node 2 --strategy 2M1P1D --global-batch-size 8)
compare_runs simulate simulate "${job[@]}" --trace @
expect_final_line build groups
expect_final_line simulate tasks
expect_final_line "trace 'progress.out'" activities

compare_runs validate validate --csv "$fixtures/validate/one_simulable.csv"
expect_final_line validate runs

compare_runs search search --model gpt2-345m --gpu a40 --nodes 1 --gpus-per-node 4 --global-batch-size 8
expect_final_line checks candidates
expect_final_line "lower bounds" candidates
expect_final_line search candidates

# tiny.yaml has 8 points; the sweep counts points, not each point's candidates.
compare_runs sweep sweep "$fixtures/sweeps/tiny.yaml"
expect_final_line sweep points
grep -q "candidates" progress.stderr && fail "sweep progress counts candidates: $(cat progress.stderr)"

# 1024 ranks of a two-layer model over 2 stages: replica 0 is the 2 ranks of the stages.
"$distsim" simulate --model "{name: one, num_layers: 2, hidden_size: 64, num_attention_heads: 1, vocab_size: 128, \
seq_length: 32}" --gpu a40 --nodes 128 --gpus-per-node 8 --strategy 1M2P512D --global-batch-size 2048 \
  --trace-ranks all --trace all.json >/dev/null 2>ranks.stderr || fail "the 1024-rank trace: exit $?"
grep -Eq "^distsim: --trace-ranks all writes every one of 1024 ranks \\([0-9.]+ [kMG]B\\); --trace-ranks replica \
writes the 2 ranks of data-parallel replica 0 \\([0-9.]+ [kMG]B\\), which show every stage and tensor rank$" ranks.stderr ||
  fail "no replica suggestion for 1024 ranks: $(cat ranks.stderr)"
exit $failed
