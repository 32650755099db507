#!/usr/bin/env bash
# Output files (--trace here; every output flag shares the writer) in the awkward places: a
# symbolic link, a user's own PATH.tmp, a planted link at PATH.tmp, a read-only file, a FIFO made
# with mkfifo, a directory, and SIGTERM in the middle of a large trace. Expected bytes are the
# same job's trace written to a plain new file; expected messages are the writer's, word for word.
# Usage: output_files.sh DISTSIM SCRATCH_DIR FIXTURES
set -u
distsim=$(realpath "$1")
scratch=$2
fixtures=$(realpath "$3")
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
cd "$scratch" || exit 1
job=(simulate --model gpt2-345m --gpu a40 --nodes 1 --gpus-per-node 2 --strategy 1M2P1D --global-batch-size 8)
failed=0
fail() {
  echo "$*"
  failed=1
}
"$distsim" "${job[@]}" --trace plain.json >/dev/null || exit 1

# Permission bits: a new file's come from the umask (as the shell's `>` makes them), a replaced
# file keeps its own.
[[ $(stat -c %a plain.json) == $(printf '%o' $((0666 & ~$(umask)))) ]] || fail "new file mode $(stat -c %a plain.json)"
echo old >private.json
chmod 0640 private.json
"$distsim" "${job[@]}" --trace private.json >/dev/null || fail "replacing a file failed"
[[ $(stat -c %a private.json) == 640 ]] && cmp -s private.json plain.json || fail "the replaced file lost its mode 0640"

# A symbolic link: the file it points to gets the trace, the link stays a link.
echo old >real.json
ln -s real.json link.json
"$distsim" "${job[@]}" --trace link.json >/dev/null || fail "writing through a link failed"
[[ -L link.json ]] || fail "the link was replaced by a file"
cmp -s real.json plain.json || fail "the file the link points to does not hold the trace"

# A user's own PATH.tmp survives, and a link planted there is not followed.
echo mine >mine.json.tmp
echo victim >victim.txt
ln -s victim.txt planted.json.tmp
"$distsim" "${job[@]}" --trace mine.json >/dev/null || fail "writing next to a user's .tmp failed"
"$distsim" "${job[@]}" --trace planted.json >/dev/null || fail "writing next to a planted link failed"
[[ $(cat mine.json.tmp) == mine ]] || fail "the user's mine.json.tmp was overwritten or removed"
[[ $(cat victim.txt) == victim && -L planted.json.tmp ]] || fail "the link planted at planted.json.tmp was followed"
cmp -s mine.json plain.json && cmp -s planted.json plain.json || fail "the traces beside the .tmp files are wrong"

# Two runs writing the same file at once: each writes its own temporary file, so the file ends
# as one whole trace, never a mix of the two.
"$distsim" "${job[@]}" --trace shared.json >/dev/null &
other=$!
"$distsim" "${job[@]}" --trace shared.json >/dev/null || fail "the first of two concurrent writers failed"
wait "$other" || fail "the second of two concurrent writers failed"
cmp -s shared.json plain.json || fail "two concurrent writers left a file that is not the trace"

# A read-only file is refused and kept (mode 0444 stops root too).
echo keep >readonly.json
chmod 0444 readonly.json
"$distsim" "${job[@]}" --trace readonly.json >/dev/null 2>err
status=$?
[[ $status -eq 2 && $(cat err) == "distsim: error: --trace: 'readonly.json' is read-only; make it writable or choose \
another path" ]] || fail "read-only target: exit $status, $(cat err)"
[[ $(cat readonly.json) == keep ]] || fail "the read-only file was changed"

# A FIFO is written into, never replaced.
mkfifo fifo
timeout 20 cat fifo >fifo.out &  # gives up when no writer comes
reader=$!
timeout 60 "$distsim" "${job[@]}" --trace fifo >/dev/null || fail "writing into a FIFO failed"
wait "$reader"
[[ -p fifo ]] || fail "the FIFO was replaced"
cmp -s fifo.out plain.json || fail "what came through the FIFO is not the trace"

# A directory is refused.
mkdir folder
"$distsim" "${job[@]}" --trace folder >/dev/null 2>err
status=$?
[[ $status -eq 2 && $(cat err) == "distsim: error: --trace: 'folder' is a directory; expected the path of a file to \
write" ]] || fail "directory target: exit $status, $(cat err)"

# SIGTERM while a large trace (every rank of 64 GPUs, a few hundred MB) is being written: the
# process ends by the signal and leaves neither the trace nor a temporary file.
"$distsim" simulate --model gpt3-175b --gpu a100 --nodes 8 --gpus-per-node 8 --strategy 8M8P1D \
  --global-batch-size 128 --trace-ranks all --trace big.json >/dev/null 2>&1 &
writer=$!
temporaries() { compgen -G '.big.json.*.tmp' || compgen -G 'big.json.tmp'; }  # .big.json.XXXXXX.tmp
until temporaries >/dev/null || ! kill -0 "$writer" 2>/dev/null; do sleep 0.01; done
kill -TERM "$writer"
wait "$writer"
status=$?
[[ $status -eq 143 ]] || fail "the trace writer was not stopped by SIGTERM mid-write (exit $status)"
leftovers=$(compgen -G '*big.json*'; compgen -G '.big.json*')
[[ -z $leftovers ]] || fail "SIGTERM left: $leftovers"

# An output onto an input or onto another output is refused before anything runs, also when a
# link or a second hard link names it, and the input keeps its bytes (issue 48, defect 3).
printf 'model: gpt2-345m\nstrategy: 1M2P1D\ngpus_per_node: 2\ngpu: a40\nglobal_batch_size: 8\n' >job.yaml
cp job.yaml job.copy
ln -s job.yaml job-link.yaml
ln job.yaml job-hard.yaml
for trace in job.yaml job-link.yaml job-hard.yaml; do
  "$distsim" simulate --job job.yaml --trace "$trace" >/dev/null 2>err
  status=$?
  [[ $status -eq 2 && $(cat err) == "distsim: error: --trace '$trace' names the same file as --job 'job.yaml', which \
this run reads; writing it would destroy that input: choose another path for --trace" ]] ||
    fail "--trace $trace onto --job: exit $status, $(cat err)"
  cmp -s job.yaml job.copy || fail "--trace $trace changed the job file"
done
"$distsim" "${job[@]}" --trace same.json --report ./same.json >/dev/null 2>err
status=$?
[[ $status -eq 2 && $(cat err) == "distsim: error: --trace 'same.json' and --report './same.json' name the same \
file; one would replace the other: give each its own path" && ! -e same.json ]] ||
  fail "--trace and --report on one new file: exit $status, $(cat err)"
"$distsim" db import "$fixtures/profiles/two_events_h100.json" --profile-db profiles.db >/dev/null || fail "import"
cp profiles.db profiles.copy
"$distsim" db export --profile-db profiles.db --output profiles.db >/dev/null 2>err
status=$?
[[ $status -eq 2 ]] && cmp -s profiles.db profiles.copy || fail "db export onto its database: exit $status, $(cat err)"

# A file name of 250 characters, inside the 255 a directory holds: its temporary file's name is
# cut to fit (defect 12), and the trace lands under the full name.
long=$(printf 'a%.0s' {1..245}).json
"$distsim" "${job[@]}" --trace "$long" >/dev/null 2>err || fail "a 250-character file name: $(cat err)"
cmp -s "$long" plain.json || fail "the trace under a 250-character name is not the trace"

# --chakra writes several files, all or none: a FIFO or a read-only file among them stops the
# export before any file lands, and says which.
mkfifo chakra.1.et
"$distsim" "${job[@]}" --chakra chakra >/dev/null 2>err
status=$?
[[ $status -eq 2 && $(cat err) == "distsim: error: --chakra: 'chakra.1.et' is not a regular file; the files of --chakra \
are written whole or not at all, so each must be a regular file or new" ]] || fail "--chakra onto a FIFO: exit $status, $(cat err)"
[[ -z $(compgen -G 'chakra.0.et') && -z $(compgen -G 'chakra.comm_groups.json') ]] || fail "--chakra wrote part of an export"
rm chakra.1.et
echo old >chakra.1.et
chmod 0444 chakra.1.et
"$distsim" "${job[@]}" --chakra chakra >/dev/null 2>err
status=$?
[[ $status -eq 2 && $(cat err) == "distsim: error: --chakra: 'chakra.1.et' is read-only; make it writable or choose \
another path" && -z $(compgen -G 'chakra.0.et') ]] || fail "--chakra onto a read-only file: exit $status, $(cat err)"
rm -f chakra.1.et
"$distsim" "${job[@]}" --chakra chakra >/dev/null || fail "--chakra"
[[ -s chakra.0.et && -s chakra.1.et && -s chakra.comm_groups.json ]] || fail "--chakra did not write its files"

stray=$(compgen -G '.*.tmp')
[[ -z $stray ]] || fail "temporary files left behind: $stray"

[[ $failed -eq 0 ]] && echo "output files: links followed, .tmp names untouched, read-only and directories refused, \
FIFOs written, nothing left after SIGTERM"
exit "$failed"
