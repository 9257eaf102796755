#!/usr/bin/env bash
# The steps of the "Hours and holidays" GitHub Actions workflow (hours-and-holidays.yml beside
# this file), one subcommand per step. It ships in the helpdesk-sync package, so the workflow
# runs the copy its lockfile installed: bash node_modules/helpdesk-sync/deploy/github-actions/…
#
#   plan            plan --out plan.json and --format markdown > plan.md; outputs exitcode, sha256;
#                   fails (after its outputs) when the plan failed: an exit code other than 0 or 2
#   comment-plan    the plan as the pull request's one plan comment (found by its marker, updated)
#   find-reviewed   the merged pull request of this push and the saved plan reviewed on it
#   apply           apply --plan the reviewed plan (its hash checked) with --report apply.md
#   comment-apply   how the apply ended, on the pull request the plan was reviewed in
#   drift-issue     a scheduled plan on main: open or update the drift issue, or close it
#
# Needs bash, curl, jq and sha256sum (all on GitHub's Ubuntu runners), the variables every job
# has (GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_SERVER_URL, GITHUB_SHA,
# GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) and, per subcommand, those named below. Comments and
# issues hold the plan or a summary and a link to the run: never a log line, since a log line
# can hold the API's address, and the run's log is where the details are.
set -euo pipefail
# A failure inside $(...) fails the step too (bash leaves errexit off there by default).
shopt -s inherit_errexit

CONFIG="${HELPDESK_SYNC_CONFIG:-helpdesk/helpdesk-sync.yaml}"
PLAN_MARKER='<!-- helpdesk-sync:plan -->'
APPLY_MARKER='<!-- helpdesk-sync:apply -->'
DRIFT_MARKER='<!-- helpdesk-sync:drift -->'
DRIFT_LABEL="${HELPDESK_DRIFT_LABEL:-helpdesk-drift}"
BOT_LOGIN='github-actions[bot]'
# GitHub refuses a comment or issue body longer than this.
BODY_LIMIT=65536
RUN_URL="${GITHUB_SERVER_URL}/${GITHUB_REPOSITORY}/actions/runs/${GITHUB_RUN_ID}"
REPO_API="${GITHUB_API_URL}/repos/${GITHUB_REPOSITORY}"

say() { echo "$*" >&2; }
output() { echo "$1=$2" >>"$GITHUB_OUTPUT"; }

# GitHub's REST API with the job's token (GH_TOKEN); the token never reaches the log.
github() {
  curl --fail-with-body -sS --retry 3 --retry-all-errors \
    -H "Authorization: Bearer ${GH_TOKEN:?GH_TOKEN is not set}" \
    -H 'Accept: application/vnd.github+json' -H 'X-GitHub-Api-Version: 2022-11-28' "$@"
}

# What an exit code of helpdesk-sync means, for a comment.
meaning() {
  case "$1" in
  1) echo 'an error, or a blocked plan' ;;
  64) echo 'the configuration or the push files are invalid' ;;
  75) echo 'another run held the state lock; it runs again on the next push' ;;
  *) echo 'an unexpected failure' ;;
  esac
}

# The id of the first comment on issue or pull request $1 written by this workflow's bot whose
# body starts with marker $2 (every page read: a busy pull request has more than 100 comments).
find_comment() {
  local number=$1 marker=$2 page=1 batch id
  while :; do
    batch=$(github "${REPO_API}/issues/${number}/comments?per_page=100&page=${page}")
    id=$(jq -r --arg m "$marker" --arg bot "$BOT_LOGIN" \
      'map(select(.user.login == $bot and (.body | startswith($m)))) | first | .id // empty' <<<"$batch")
    if [ -n "$id" ]; then
      echo "$id"
      return
    fi
    [ "$(jq length <<<"$batch")" -lt 100 ] && return
    page=$((page + 1))
  done
}

# Body file $1 as a JSON request, cut to GitHub's limit with a link to the run if ever needed.
body_json() {
  local file=$1
  if [ "$(wc -m <"$file")" -gt "$BODY_LIMIT" ]; then
    { head -c 60000 "$file"; printf '\n\n… cut to fit a comment: the whole text is in [the run](%s).\n' "$RUN_URL"; } >"$file.cut"
    file="$file.cut"
  fi
  jq -n --rawfile body "$file" '{body: $body}'
}

# Updates the comment of issue or pull request $1 that starts with marker $2, else creates it.
upsert_comment() {
  local number=$1 marker=$2 file=$3 id
  id=$(find_comment "$number" "$marker")
  if [ -n "$id" ]; then
    body_json "$file" | github -X PATCH "${REPO_API}/issues/comments/${id}" --data @- >/dev/null
    say "updated comment ${id} on #${number}"
  else
    body_json "$file" | github -X POST "${REPO_API}/issues/${number}/comments" --data @- >/dev/null
    say "commented on #${number}"
  fi
}

# plan: the Markdown plan for a comment and the log, the saved plan for apply.
cmd_plan() {
  local code=0
  npx helpdesk-sync plan --config "$CONFIG" --format markdown --detailed-exitcode --out plan.json >plan.md || code=$?
  output exitcode "$code"
  [ -f plan.json ] && output sha256 "$(sha256sum plan.json | cut -d' ' -f1)"
  # The whole plan in this run's log, as saved (a comment cut to fit GitHub's limit links here):
  # the very plan that was reviewed, not a second one read from the API a moment later.
  cat plan.md >&2
  cat plan.md >>"$GITHUB_STEP_SUMMARY"
  # A plan that failed fails this step (0: no changes, 2: changes), so the job shows red; the steps
  # that comment or open the drift issue run after it with always() and still say why.
  case "$code" in
  0 | 2) ;;
  *)
    say "::error::the plan failed (exit ${code}: $(meaning "$code"))"
    return 1
    ;;
  esac
}

# comment-plan: PR_NUMBER, PLAN_EXIT, PLAN_SHA256 (empty when no plan was saved), HEAD_SHA.
cmd_comment_plan() {
  : "${PR_NUMBER:?}" "${PLAN_EXIT:?}"
  {
    echo "$PLAN_MARKER"
    if [ -n "${PLAN_SHA256:-}" ]; then
      echo "<!-- helpdesk-sync:saved-plan run=${GITHUB_RUN_ID} sha256=${PLAN_SHA256} head=${HEAD_SHA:-} -->"
    fi
    [ -s plan.md ] && cat plan.md && echo
    case "$PLAN_EXIT" in
    0 | 2)
      echo "Saved plan \`${PLAN_SHA256:0:12}\`: merging applies exactly this plan, and nothing if the" \
        "helpdesk or the state has changed since (plan again then)."
      ;;
    *) echo "**The plan failed** (exit ${PLAN_EXIT}: $(meaning "$PLAN_EXIT")). The details are in [the run's log](${RUN_URL})." ;;
    esac
  } >comment.md
  upsert_comment "$PR_NUMBER" "$PLAN_MARKER" comment.md
}

# find-reviewed: the pull request merged as this commit and the saved plan on its plan comment.
cmd_find_reviewed() {
  local pr comment body line
  pr=$(github "${REPO_API}/commits/${GITHUB_SHA}/pulls" |
    jq -r --arg sha "$GITHUB_SHA" 'map(select(.merge_commit_sha == $sha)) | first | .number // empty')
  if [ -z "$pr" ]; then
    say "::error::no pull request was merged as ${GITHUB_SHA}: nothing reviewed to apply. Changes reach main through a pull request; to plan main and apply it after approval, run this workflow by hand."
    exit 1
  fi
  output pr "$pr"
  # GitHub failing here fails the step as it is (it says so); only a missing comment means no plan.
  comment=$(find_comment "$pr" "$PLAN_MARKER")
  if [ -z "$comment" ]; then
    say "::error::pull request #${pr} has no plan comment: no plan ran on it (the workflow was added later, or its paths were not touched)"
    exit 1
  fi
  body=$(github "${REPO_API}/issues/comments/${comment}" | jq -r .body)
  line=$(grep -oE 'helpdesk-sync:saved-plan run=[0-9]+ sha256=[0-9a-f]{64}' <<<"$body" | head -n 1) || true
  if [ -z "$line" ]; then
    say "::error::pull request #${pr} has no saved plan to apply (its last plan failed, or none was made)"
    exit 1
  fi
  output run_id "$(sed -E 's/.*run=([0-9]+).*/\1/' <<<"$line")"
  output sha256 "$(sed -E 's/.*sha256=([0-9a-f]+).*/\1/' <<<"$line")"
}

# apply: PLAN_FILE (the downloaded saved plan), PLAN_SHA256 (the hash that was reviewed).
cmd_apply() {
  local file=${PLAN_FILE:?} code=0 actual
  actual=$(sha256sum "$file" | cut -d' ' -f1)
  if [ "$actual" != "${PLAN_SHA256:?}" ]; then
    printf '## Not applied: the saved plan is not the one reviewed\n\nIts hash is `%s`, the reviewed one `%s`.\n' \
      "${actual:0:12}" "${PLAN_SHA256:0:12}" >apply.md
    say "::error::the saved plan's hash ${actual} is not the reviewed ${PLAN_SHA256}"
    output exitcode 1
    exit 1
  fi
  npx helpdesk-sync apply --config "$CONFIG" --plan "$file" --report apply.md || code=$?
  output exitcode "$code"
  [ -f apply.md ] && cat apply.md >>"$GITHUB_STEP_SUMMARY"
  return "$code"
}

# comment-apply: PR_NUMBER, APPLY_EXIT (empty when apply never ran: no reviewed plan was found).
cmd_comment_apply() {
  : "${PR_NUMBER:?}"
  local code=${APPLY_EXIT:-}
  {
    echo "$APPLY_MARKER"
    if [ -s apply.md ]; then
      cat apply.md
    elif [ -z "$code" ]; then
      echo '## Not applied: no saved plan was reviewed on this pull request (its last plan failed, or none was made)'
    else
      echo "## Not applied (exit ${code}: $(meaning "$code"))"
    fi
    echo
    if [ "$code" != 0 ]; then
      echo 'To apply what `main` holds now: run this workflow by hand (Actions, "Hours and holidays", Run workflow);' \
        'it plans `main` and applies that plan once the `helpdesk` environment approves it.'
      echo
    fi
    echo "Details in [the run's log](${RUN_URL})."
  } >comment.md
  upsert_comment "$PR_NUMBER" "$APPLY_MARKER" comment.md
}

# drift-issue: PLAN_EXIT. 2 (main's plan has changes) or a failure opens the one drift issue, or
# updates it; 0 closes it when one is open.
cmd_drift_issue() {
  : "${PLAN_EXIT:?}"
  local number title='Hours and holidays: the helpdesk differs from the configuration'
  number=$(github "${REPO_API}/issues?state=open&labels=${DRIFT_LABEL}&per_page=100" |
    jq -r --arg m "$DRIFT_MARKER" 'map(select(.body // "" | startswith($m))) | first | .number // empty')
  if [ "$PLAN_EXIT" = 0 ]; then
    [ -z "$number" ] && {
      say 'no drift'
      return
    }
    printf 'No drift any more at commit `%s` ([run](%s)): closing.\n' "${GITHUB_SHA:0:12}" "$RUN_URL" >note.md
    body_json note.md | github -X POST "${REPO_API}/issues/${number}/comments" --data @- >/dev/null
    github -X PATCH "${REPO_API}/issues/${number}" --data '{"state":"closed","state_reason":"completed"}' >/dev/null
    say "closed drift issue #${number}"
    return
  fi
  {
    echo "$DRIFT_MARKER"
    if [ "$PLAN_EXIT" = 2 ]; then
      echo "The scheduled plan of \`main\` (commit \`${GITHUB_SHA:0:12}\`, [run](${RUN_URL})) has changes:" \
        "someone changed business hours or holidays in the helpdesk, or a merge was not applied." \
        "Apply restores the configuration (run the workflow by hand), or change the files to keep what the helpdesk has."
      echo
      cat plan.md
    else
      echo "The scheduled plan of \`main\` failed (exit ${PLAN_EXIT}: $(meaning "$PLAN_EXIT")). Details in [the run's log](${RUN_URL})."
    fi
  } >issue.md
  if [ -n "$number" ]; then
    body_json issue.md | github -X PATCH "${REPO_API}/issues/${number}" --data @- >/dev/null
    say "updated drift issue #${number}"
  else
    body_json issue.md | jq --arg t "$title" --arg l "$DRIFT_LABEL" '. + {title: $t, labels: [$l]}' |
      github -X POST "${REPO_API}/issues" --data @- >/dev/null
    say 'opened a drift issue'
  fi
}

case "${1:-}" in
plan) cmd_plan ;;
comment-plan) cmd_comment_plan ;;
find-reviewed) cmd_find_reviewed ;;
apply) cmd_apply ;;
comment-apply) cmd_comment_apply ;;
drift-issue) cmd_drift_issue ;;
*)
  say "usage: $0 plan|comment-plan|find-reviewed|apply|comment-apply|drift-issue"
  exit 64
  ;;
esac
