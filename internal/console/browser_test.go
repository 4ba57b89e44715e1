package console_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/console"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// chromium finds a Chromium to drive ($SWITCHBOARD_CHROMIUM, else one on
// PATH). Without one the test fails in CI and is skipped elsewhere.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SWITCHBOARD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("the browser tests need Chromium: apt-get install -y chromium (or set SWITCHBOARD_CHROMIUM)")
	}
	t.Skip("no chromium on PATH (apt-get install -y chromium, or set SWITCHBOARD_CHROMIUM)")
	return ""
}

// openPage starts a headless Chromium on url and waits for the page's
// first state; each later step is bounded by step.
func openPage(t *testing.T, url string) context.Context {
	t.Helper()
	profile, err := os.MkdirTemp("", "switchboard-chromium-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(profile) })
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 860),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	require.NoError(t, chromedp.Run(ctx), "start chromium")
	step(t, ctx, "open the console", chromedp.Navigate(url), chromedp.WaitVisible(`body[data-loaded]`))
	return ctx
}

// step runs browser actions within testkit.WaitLimit.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, testkit.WaitLimit)
	defer cancel()
	require.NoError(t, chromedp.Run(ctx, actions...), what)
}

// busyStore is a store with something for every view: five registered
// agents that all talk to each other, a task, and requests owed replies.
func busyStore(t *testing.T) *store.Store {
	t.Helper()
	ctx := testkit.Ctx(t)
	be := store.New(memstore.New(memstore.Options{}), nil)
	t.Cleanup(func() { be.Close() })
	agents := []string{"researcher", "coder", "reviewer-with-a-long-name", "tester", "writer"}
	for _, id := range agents {
		_, err := be.UpdateCard(ctx, id, func(c *envelope.Card) {
			c.Status, c.LastHeartbeat, c.MaxConcurrentTasks = "idle", envelope.NewTime(time.Now()), 3
		})
		require.NoError(t, err)
	}
	at := time.Now().Add(-time.Minute)
	for _, from := range agents {
		for _, to := range agents {
			if from == to {
				continue
			}
			at = at.Add(time.Millisecond)
			require.NoError(t, be.Deliver(ctx, &envelope.Message{ID: envelope.NewID(), From: from, To: to,
				Type: envelope.TypeMessage, TTL: 2, Trace: []string{from}, Timestamp: envelope.NewTime(at),
				ExpectsReply: true, Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("hello " + to)}}}))
		}
	}
	require.NoError(t, be.Deliver(ctx, &envelope.Message{ID: envelope.NewID(), From: "researcher", To: "coder",
		Type: envelope.TypeTask, TTL: 2, Trace: []string{"researcher"}, Timestamp: envelope.NewTime(at),
		Task: &envelope.Task{ID: "t-sort", State: envelope.StatePending}, ExpectsReply: true,
		Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("write a sort")}}}))
	return be
}

// TestReadOnlyPageOffersNoAction: opened without the token, no view of
// the page shows an enabled action (the send form is not shown at all,
// the buttons that act are disabled or absent): only the tabs, the theme
// switch and the search fields can be used. The Approvals tab shows no
// count when nothing waits.
func TestReadOnlyPageOffersNoAction(t *testing.T) {
	t.Parallel()
	c, err := console.New(console.Config{Store: busyStore(t), Token: token, ReadOpen: true})
	require.NoError(t, err)
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	ctx := openPage(t, srv.URL)

	// usable lists the controls a person can see and use, but for the
	// page's navigation: the tabs, the theme switch, the search fields
	// and the buttons that only open a conversation.
	const usable = `[...document.querySelectorAll("button, input, textarea, select")].filter((e) =>
		e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden" && !e.disabled &&
		!e.closest("nav") && e.id !== "theme" && e.type !== "search" &&
		!(e.closest("#thread-list") || e.textContent === "conversation")).map((e) => e.outerHTML.slice(0, 120))`
	for _, view := range []string{"agents", "threads", "tasks", "graph", "setaside", "pending", "audit", "approvals"} {
		step(t, ctx, "open "+view, chromedp.Click(`nav button[data-view="`+view+`"]`),
			chromedp.WaitVisible(`#view-`+view))
		if view == "threads" {
			step(t, ctx, "open a conversation", chromedp.Click(`#thread-list button`),
				chromedp.WaitVisible(`article.msg`))
			var shown bool
			step(t, ctx, "the send form", chromedp.Evaluate(`document.querySelector("#send").getClientRects().length > 0`, &shown))
			assert.False(t, shown, "the send form is shown to a read-only session")
		}
		var found []string
		step(t, ctx, "list what can be used in "+view, chromedp.Evaluate(usable, &found))
		assert.Empty(t, found, "view %s offers actions to a read-only session", view)
	}
	var shown bool
	step(t, ctx, "the approvals count", chromedp.Evaluate(`document.querySelector("#approvals-count").getClientRects().length > 0`, &shown))
	assert.False(t, shown, "the Approvals tab shows a count with nothing waiting")
}

// TestGraphLabelsDoNotOverlap: with five agents that all write to each
// other, no two labels of the graph (agent names, message counts)
// overlap, nor does a label cover an agent's circle.
func TestGraphLabelsDoNotOverlap(t *testing.T) {
	t.Parallel()
	c, err := console.New(console.Config{Store: busyStore(t), Token: token, ReadOpen: true})
	require.NoError(t, err)
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	ctx := openPage(t, srv.URL)
	step(t, ctx, "open the graph", chromedp.Click(`nav button[data-view="graph"]`),
		chromedp.WaitVisible(`#view-graph svg circle`))
	var overlaps []string
	step(t, ctx, "measure the labels", chromedp.Evaluate(`(() => {
		const boxes = [...document.querySelectorAll("#view-graph svg text, #view-graph svg circle")].map((e) => {
			const r = e.getBoundingClientRect();
			return { name: e.tagName + (e.textContent ? " " + JSON.stringify(e.textContent) : "") + " at " + Math.round(r.left) + "," + Math.round(r.top), r, text: e.tagName === "text" };
		});
		const out = [];
		for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
			const a = boxes[i], b = boxes[j];
			if (!a.text && !b.text) continue;
			if (a.r.left < b.r.right && b.r.left < a.r.right && a.r.top < b.r.bottom && b.r.top < a.r.bottom)
				out.push(a.name + " / " + b.name);
		}
		return out;
	})()`, &overlaps))
	var labels int
	step(t, ctx, "count the labels", chromedp.Evaluate(`document.querySelectorAll("#view-graph svg text").length`, &labels))
	assert.Equal(t, 5+20, labels, "five agents, twenty edges")
	assert.Empty(t, overlaps)
}
