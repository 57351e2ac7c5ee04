package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
)

// The documents whose examples a partner's engineer pastes.
var pastedDocs = []string{"README.md", "docs/integration.md"}

// docBlock is one fenced block of a document.
type docBlock struct {
	lang, text string
	line       int
}

// fencedBlocks lists the document's ```sh and ```shell blocks in order. A ```sh block is an
// example of the API, which runs as it stands; ```shell is for the operator's commands (make,
// bin/tiyin, openssl), which need more than a sandbox.
func fencedBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	blocks, err := scanBlocks(f)
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// scanBlocks reads the fenced blocks of Markdown. A fence may be indented (a block inside a
// list item); its indent is taken off every line of the block, as Markdown does.
func scanBlocks(r io.Reader) ([]docBlock, error) {
	var blocks []docBlock
	var cur *docBlock
	indent := ""
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			cur = &docBlock{lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), line: n}
		case cur != nil && strings.TrimSpace(line) == "```":
			if cur.lang == "sh" || cur.lang == "shell" {
				blocks = append(blocks, *cur)
			}
			cur = nil
		case cur != nil:
			// Markdown takes off as much of the fence's indent as the line has.
			for i := 0; i < len(indent) && strings.HasPrefix(line, " "); i++ {
				line = line[1:]
			}
			cur.text += line + "\n"
		}
	}
	return blocks, sc.Err()
}

// callLine is a line that calls the API: a `call` or `curl` command, at the line's start or
// after a prefix of variables, a pipe, `;`, `&&`, `$(` or `(`. Only a ```sh block may hold one.
var callLine = regexp.MustCompile(`(^|[\s;&|(])(call|curl)\s`)

// TestAnIndentedFenceIsABlock: a block inside a list item (its fence indented) is read, its
// indent taken off, so the docs test runs it (issue 48: the "Lost the applicationId" blocks
// never ran); a call in a ```shell block, which the test does not run, is found.
func TestAnIndentedFenceIsABlock(t *testing.T) {
	t.Parallel()
	md := "1. **Find it:**\n\n   ```sh\n   call /find '{}'\n     # code 1001\n   ```\n   ```json\n   {}\n   ```\n" +
		"```shell\nbin/tiyin partner create postman   # the key\nTIYIN_KEY=$K call /sandbox/reset '{}'\n```\n"
	blocks, err := scanBlocks(strings.NewReader(md))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].lang != "sh" || blocks[0].line != 3 || blocks[0].text != "call /find '{}'\n  # code 1001\n" {
		t.Fatalf("blocks: %#v", blocks)
	}
	var calls []string
	for _, l := range strings.Split(blocks[1].text, "\n") {
		if callLine.MatchString(l) {
			calls = append(calls, l)
		}
	}
	if len(calls) != 1 || calls[0] != "TIYIN_KEY=$K call /sandbox/reset '{}'" {
		t.Fatalf("calls found in the ```shell block: %q", calls)
	}
	for _, l := range []string{"curl -s $URL", "x=$(curl -s $URL)", "a && call /x '{}'", "echo | call /x"} {
		if !callLine.MatchString(l) {
			t.Errorf("%q is not seen as a call", l)
		}
	}
	for _, l := range []string{"make run", "bin/tiyin operator create admin --role admin", "recall /x"} {
		if callLine.MatchString(l) {
			t.Errorf("%q is seen as a call", l)
		}
	}
}

// polling is a shell loop that waits for a status by grepping the answer for it.
var polling = regexp.MustCompile(`\b(until|while)\b.*"status":"`)

// walkThroughHelpers is the first block of docs/integration.md, which defines the helpers
// (uuid, call, last, await) every other block uses.
func walkThroughHelpers(t *testing.T) string {
	t.Helper()
	blocks := fencedBlocks(t, "docs/integration.md")
	if len(blocks) == 0 || !strings.Contains(blocks[0].text, "await() {") || !strings.Contains(blocks[0].text, "uuid() {") {
		t.Fatal("docs/integration.md's first block does not define uuid and await")
	}
	return blocks[0].text
}

// TestTheWalkThroughsAwaitStopsAtAnEnd: the walk-through's await, asked to wait for PENDING on
// an application pre-scoring declines (a pinfl ending 0000), stops at REJECTED, printing it
// and failing, instead of asking forever (issue 48); for an application approved it returns
// the PENDING answer.
func TestTheWalkThroughsAwaitStopsAtAnEnd(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	script := walkThroughHelpers(t) + `
register() { call /microloans/applications/pre-scoring/register '{"externalId":"'$(uuid)'",
  "isAgreementAccepted":true,"phoneNumber":"998901234567","clientData":'"$(echo "$CLIENT" | sed "s/31234567890123/$1/")"'}' >/dev/null; last applicationId; }
APP=$(register 31234567890123)
await /microloans/applications/info '{"applicationId":"'$APP'"}' PENDING || { echo "await failed on an approved application"; exit 3; }
DECLINED=$(register 31234567890000)
if await /microloans/applications/info '{"applicationId":"'$DECLINED'"}' PENDING; then echo "await returned on a declined application"; exit 4; fi
`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TIYIN_URL="+s.url, "TIYIN_KEY="+s.key)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"status":"PENDING"`) || !strings.Contains(string(out), "it ended REJECTED, not PENDING") {
		t.Fatalf("await: %v (a minute is the test's bound)\n%s", err, out)
	}
}

// TestTheWalkThroughsUUIDFallsBackToUuidgen: where /proc has no uuid (macOS), the walk-through's
// uuid takes uuidgen's, in lower case.
func TestTheWalkThroughsUUIDFallsBackToUuidgen(t *testing.T) {
	t.Parallel()
	helpers := walkThroughHelpers(t)
	line := helpers[:strings.Index(helpers, "\n")]
	if !strings.HasPrefix(line, "uuid() {") {
		t.Fatalf("the first line of the helpers is not uuid's: %s", line)
	}
	script := `cat() { [ "$1" = /proc/sys/kernel/random/uuid ] && return 1; command cat "$@"; }
uuidgen() { echo 0A1B2C3D-4E5F-4A6B-8C7D-8E9FA0B1C2D3; }
` + line + "\nuuid\n"
	out, err := exec.Command("bash", "-c", script).Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != "0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3" {
		t.Fatalf("uuid without /proc: %q, %v", got, err)
	}
}

// expectedCode is a documented refusal: a comment "# code N" on the line that provokes it.
var expectedCode = regexp.MustCompile(`# code (\d+)`)

const blockMark = "@@tiyin-docs-block@@"

// TestTheDocsExamplesRunAsPasted runs every ```sh block of the README and the integration
// guide, in order, each document as one paste into a terminal (bash, `set -e`) that has the
// export line of a fresh sandbox. Every command must succeed and every answer must be an
// envelope without an error, but for the codes a block names ("# code 1013"), each of which
// must then come. A curl example may not hide in a ```shell block (issue 48).
func TestTheDocsExamplesRunAsPasted(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	// The guide's Postman section has the operator make a partner "postman" and export its key
	// as POSTMAN_KEY (a ```shell block); the ```sh block after it resets that partner's sandbox.
	var postman struct{ APIKey string }
	if err := json.Unmarshal([]byte(s.tiyin(t, "partner", "create", "postman", "--json")), &postman); err != nil || postman.APIKey == "" {
		t.Fatalf("partner create postman: %v", err)
	}
	for _, doc := range pastedDocs {
		blocks := fencedBlocks(t, doc)
		var script strings.Builder
		script.WriteString("set -e\n")
		var run []docBlock
		for _, b := range blocks {
			if b.lang == "shell" {
				for _, l := range strings.Split(b.text, "\n") {
					if callLine.MatchString(strings.TrimSpace(l)) && !strings.HasPrefix(strings.TrimSpace(l), "#") {
						t.Errorf("%s:%d: a call of the API in a ```shell block, which CI does not run: make it ```sh\n%s", doc, b.line, l)
					}
				}
				continue
			}
			for _, l := range strings.Split(b.text, "\n") {
				if strings.Contains(l, "/proc/") && !strings.HasPrefix(l, "uuid() {") {
					t.Errorf("%s:%d: /proc outside the uuid helper, which macOS lacks: use $(uuid)\n%s", doc, b.line, l)
				}
				if polling.MatchString(l) {
					t.Errorf("%s:%d: a loop asking for a status, which asks forever once the object ends otherwise: use await\n%s", doc, b.line, l)
				}
			}
			run = append(run, b)
			fmt.Fprintf(&script, "%s\nprintf '\\n%s\\n'\n", b.text, blockMark)
		}
		if len(run) == 0 {
			t.Fatalf("%s: no ```sh block", doc)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "TIYIN_URL="+s.url, "TIYIN_KEY="+s.key, "POSTMAN_KEY="+postman.APIKey)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		segments := strings.Split(string(out), blockMark)
		if err != nil {
			failed := run[min(len(segments)-1, len(run)-1)]
			t.Fatalf("%s:%d: the block fails (%v):\n%s\nits output:\n%s\nstderr:\n%s", doc, failed.line, err, failed.text,
				segments[len(segments)-1], stderr.String())
		}
		calls := 0
		for i, b := range run {
			want := map[int]bool{}
			for _, m := range expectedCode.FindAllStringSubmatch(b.text, -1) {
				c, _ := strconv.Atoi(m[1])
				want[c] = true
			}
			seen := map[int]bool{}
			for _, line := range strings.Split(segments[i], "\n") {
				if !strings.HasPrefix(line, `{"id"`) {
					continue
				}
				calls++
				var env struct {
					Error *struct {
						Code int `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(line), &env); err != nil {
					t.Errorf("%s:%d: an answer that is not JSON: %s", doc, b.line, line)
					continue
				}
				if env.Error != nil {
					seen[env.Error.Code] = true
					if !want[env.Error.Code] {
						t.Errorf("%s:%d: an answer with code %d, which the block does not name:\n%s\n%s", doc, b.line, env.Error.Code, b.text, line)
					}
				}
			}
			for c := range want {
				if !seen[c] {
					t.Errorf("%s:%d: the block names code %d, which never came:\n%s", doc, b.line, c, segments[i])
				}
			}
		}
		t.Logf("%s: %d blocks run, %d answers checked", doc, len(run), calls)
		if calls < len(run) {
			t.Errorf("%s: %d answers for %d blocks: the examples did not call the server", doc, calls, len(run))
		}
	}
}

// demoShape is a line of `tiyin demo`'s output with what changes from run to run made alike:
// ids, then every run of digits; spaces collapsed.
func demoShape(line string) string {
	line = demoID.ReplaceAllString(line, "ID")
	line = regexp.MustCompile(`[0-9]+`).ReplaceAllString(line, "9")
	return strings.Join(strings.Fields(line), " ")
}

var demoID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestTheREADMEShowsTheDemosOutput: the README's sample of `tiyin demo` is what the demo prints,
// line by line, but for ids, numbers and dates (issue 48: the sample showed "28%" where the
// demo prints "28.00%").
func TestTheREADMEShowsTheDemosOutput(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sample, ok := strings.Cut(string(readme), "\n```\n #  step")
	if !ok {
		t.Fatal("README.md has no sample of the demo's output (a ``` block starting \" #  step\")")
	}
	sample, _, _ = strings.Cut(" #  step"+sample, "\n```")
	s := start(t, store.SQLite)
	out, err := exec.Command(binary, "demo", "--url", s.url, "--key", s.key).Output()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	want := strings.Split(strings.TrimSpace(string(out)), "\n")
	got := strings.Split(strings.TrimSpace(sample), "\n")
	for i := range max(len(want), len(got)) {
		w, g := "", ""
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if demoShape(w) != demoShape(g) {
			t.Errorf("README.md's demo sample, line %d:\n%s\nthe demo printed:\n%s", i+1, g, w)
		}
	}
}
