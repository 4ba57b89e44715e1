package slack

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMrkdwn(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "just words", "just words"},
		{"escapes", "a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"},
		{"no mention or link of its own", "<@U123> <!channel> <https://x|y>", "&lt;@U123&gt; &lt;!channel&gt; &lt;https://x|y&gt;"},
		{"bold", "**one** and __two__", "*one* and *two*"},
		{"strike", "~~gone~~", "~gone~"},
		{"headings", "# Title\n## **Sub** ##\nbody", "*Title*\n*Sub*\nbody"},
		{"link", "[docs](https://example.com/?a=1&b=2)", "<https://example.com/?a=1&amp;b=2|docs>"},
		{"link text with a bar", "[a|b](https://x.io)", "<https://x.io|a¦b>"},
		{"not a web link", "[x](javascript:alert(1))", "[x](javascript:alert(1))"},
		{"inline code kept", "`**not bold** <b>` and **bold**", "`**not bold** &lt;b&gt;` and *bold*"},
		{"code block kept", "```\n# not a heading\n**x** & y\n```\n# heading", "```\n# not a heading\n**x** &amp; y\n```\n*heading*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, mrkdwn(tt.in))
		})
	}
}

func TestFences(t *testing.T) {
	assert.Equal(t, []string{"a", "b"}, fences([]string{"a", "b"}))
	assert.Equal(t, []string{"```\nx\n```", "```\ny\n```", "```\nz\n```"},
		fences([]string{"```\nx", "y", "z\n```"}))
	assert.Equal(t, []string{"```\nx\n```\n```\ny\n```", "```\nz\n```", "after"},
		fences([]string{"```\nx\n```\n```\ny", "z\n```", "after"}))
}
