#!/usr/bin/env bash
# Every benchmark, in one go, printing the figures the issues ask for.
#   bench/run_all.sh           # moderate sizes (a few minutes on 2 cores)
#   bench/run_all.sh --full    # the sizes quoted in the docs (100 MB sessions, 5,000 skills; much longer),
#                              # then issue 9's scale figures (10,000 skills, a 1 GB session, 50 folders)
# Each script also runs on its own; see the docstring at its top.
set -euo pipefail
cd "$(dirname "$0")/.."
FULL=0; [ "${1:-}" = "--full" ] && FULL=1
run() { echo; echo "### $*"; python "$@"; }

if [ "$FULL" = 1 ]; then
  run bench/bench_real_shapes.py --runs 5            # issue 21: real-shaped skills and a 111 MB session, beside Pi
  run bench/bench_lsp.py --cold 20000                # issue 18: a cold start among 20,000 skills and a 30 MB AGENTS.md
  run bench/bench_skills.py 100 1000 5000
  run bench/bench_prompt_rules.py --skills 5000
  run bench/bench_yaml.py
  run bench/bench_yaml.py --differential 300000
  run bench/bench_hostile.py
  run bench/bench_context_discovery.py 30
  run bench/bench_check_repos.py --runs 10
  run bench/bench_tokens.py
  run bench/bench_session.py --sizes 1,10,100
  run bench/bench_compaction.py --mb 100 --runs 3
  run bench/bench_budget.py --sizes 1,10,100
  run bench/bench_llm.py 1024
  run bench/bench_redaction.py --kib 1024 --limits
  run bench/bench_editing.py --runs 30
  run bench/bench_lsp.py --runs 10 --skills 1000 --saves 20
  run bench/bench_chat_view.py --deltas 1000
  run bench/bench_chat.py --events 10000 --mb 100 --runs 3 --render
  run bench/bench_chat_reattach.py --runs 5 --events 10000
  run bench/bench_chat_live.py --skills 10,200,1000 --session-mb 100
  run bench/bench_pi_releases.py --runs 5 --entries 100000
  # Scale (issue 9): 10,000 skills; a 1 GB session (Pi cannot read it: over Node's string limit, so it
  # reports its error; ours raises its 512 MiB limit to the file's size); a 50-folder workspace.
  run bench/bench_skills.py 10000
  run bench/bench_compaction.py --mb 1024 --runs 1
  run bench/bench_lsp.py --folders 50 --folder-skills 5
else
  run bench/bench_real_shapes.py --runs 3 --mb 20
  run bench/bench_skills.py 100 1000
  run bench/bench_prompt_rules.py
  run bench/bench_yaml.py
  run bench/bench_hostile.py
  run bench/bench_context_discovery.py 30
  run bench/bench_check_repos.py
  run bench/bench_tokens.py
  run bench/bench_session.py --sizes 1,10
  run bench/bench_compaction.py --mb 10 --runs 2
  run bench/bench_budget.py --sizes 1,10
  run bench/bench_llm.py 256
  run bench/bench_redaction.py
  run bench/bench_editing.py --runs 10
  run bench/bench_lsp.py --runs 5 --skills 1000 --saves 10
  run bench/bench_chat_view.py --deltas 300
  run bench/bench_chat.py --events 10000 --mb 10 --runs 2
  run bench/bench_chat_reattach.py --runs 2 --events 2000
  run bench/bench_chat_live.py --skills 10,200 --session-mb 10 --runs 10
  run bench/bench_pi_releases.py --runs 3 --entries 20000
fi
