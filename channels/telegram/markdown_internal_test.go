package telegram

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/telegramfake"
)

func TestRenderHTML(t *testing.T) {
	for _, tt := range []struct{ name, md, want string }{
		{"plain", "just words", "just words"},
		{"escaped", `a < b && c > d "q"`, `a &lt; b &amp;&amp; c &gt; d "q"`},
		{"html is text", "<b>not bold</b>", "&lt;b&gt;not bold&lt;/b&gt;"},
		{"bold", "**a** and __b__", "<b>a</b> and <b>b</b>"},
		{"italic", "*a* and _b_, not snake_case_name or 2 * 3 * 4", "<i>a</i> and <i>b</i>, not snake_case_name or 2 * 3 * 4"},
		{"adjacent italics", "_a_ _b_ _c_", "<i>a</i> <i>b</i> <i>c</i>"},
		{"strike", "~~gone~~", "<s>gone</s>"},
		{"nested", "**bold _and italic_**", "<b>bold <i>and italic</i></b>"},
		{"crossing stays as written", "**a _b** c_", "<b>a _b</b> c_"},
		{"inline code", "run `a<b && **c**`", "run <code>a&lt;b &amp;&amp; **c**</code>"},
		{"fence", "```py\nif a < b:\n    pass\n```", "<pre><code class=\"language-py\">if a &lt; b:\n    pass</code></pre>"},
		{"fence without language", "```\nx & y\n```", "<pre>x &amp; y</pre>"},
		{"link", "[the docs](https://x.test/?a=1&b=\"2\")", `<a href="https://x.test/?a=1&amp;b=&#34;2&#34;">the docs</a>`},
		{"link text with code", "[`f()`](https://x.test)", `<a href="https://x.test">f()</a>`},
		{"not a web link", "[x](javascript:alert(1))", "[x](javascript:alert(1))"},
		{"heading", "# Title with **bold**\ntext", "<b>Title with bold</b>\ntext"},
		{"list", "- one\n* two\n  + three", "• one\n• two\n  • three"},
		{"quote", "> said\n> more\nafter", "<blockquote>said\nmore</blockquote>\nafter"},
		{"quote to the end", "> - item", "<blockquote>• item</blockquote>"},
		{"markers in the input are dropped", "a\x00b\x01c\x03", "abc"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := renderHTML(tt.md)
			assert.Equal(t, tt.want, got)
			_, _, err := telegramfake.ParseHTML(got)
			assert.NoError(t, err, "Telegram takes it")
		})
	}
}

// Whatever the Markdown, the HTML is what Telegram parses (the fake
// parses it by Telegram's rules), and it shows no more than the Markdown
// had: a part within the limit stays within it once rendered.
func FuzzRenderHTML(f *testing.F) {
	for _, seed := range []string{"", "**a _b** c_", "*_~`[x](https://y)`~_*", "> # **h**\n> - `c`\n```go\nx\n```",
		"<&>\"'", "__*a*__", "[a](https://b) [c](tg://d)", "```\n```", "~~**~~**", "_a_b_c_", "* * *", "#\n>\n-"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, md string) {
		if !isUTF8(md) {
			return
		}
		out := renderHTML(md)
		text, _, err := telegramfake.ParseHTML(out)
		require.NoError(t, err, "markdown %q rendered %q", md, out)
		assert.LessOrEqual(t, utf16Len(text), utf16Len(md), "markdown %q shows %q", md, text)
	})
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "") == s }

func TestSplitText(t *testing.T) {
	assert.Nil(t, splitText("  \n ", 10))
	assert.Equal(t, []string{"short"}, splitText(" short\n", 10))
	parts := splitText(strings.Repeat("😀", 10), 8)
	assert.Equal(t, []string{"😀😀😀😀", "😀😀😀😀", "😀😀"}, parts, "UTF-16 code units, as Telegram counts")

	code := "intro\n\n```go\n" + strings.Repeat("line\n", 20) + "```\nafter"
	parts = splitText(code, 40)
	require.Greater(t, len(parts), 2)
	for i, p := range parts {
		assert.LessOrEqual(t, utf16Len(p), 40, p)
		assert.Equal(t, 0, strings.Count(p, "```")%2, "part %d closes what it opens: %q", i, p)
		_, _, err := telegramfake.ParseHTML(renderHTML(p))
		require.NoError(t, err)
	}
	assert.True(t, strings.HasPrefix(parts[1], "```go\n"), "the block opens again: %q", parts[1])
	assert.Equal(t, 20, strings.Count(strings.Join(parts, ""), "line"))
	assert.Equal(t, []string{"```x``` then", "more"}, splitText("```x``` then more", 12), "a whole block on a line is no fence")
}

func TestAllowed(t *testing.T) {
	for _, tt := range []struct {
		allow  []string
		sender string
		want   bool
	}{
		{[]string{"*"}, "1|ada", true},
		{nil, "1|ada", false},
		{[]string{"1|ada"}, "1|ada", true},
		{[]string{"1"}, "1|ada", true},
		{[]string{"ada"}, "1|ada", true},
		{[]string{"@Ada"}, "1|ada", true},
		{[]string{"ada"}, "1", false},
		{[]string{"1"}, "1", true},
		{[]string{"2", "bob"}, "1|ada", false},
		{[]string{""}, "1|ada", false},
		{[]string{"ada|1"}, "1|ada", false},
	} {
		assert.Equal(t, tt.want, allowed(tt.allow, tt.sender), "%q %q", tt.allow, tt.sender)
	}
}
