// Package config loads switchboard's configuration in nanobot's format.
//
// The configuration is one JSON file, ~/.nanobot/config.json unless another is
// named (see [DefaultPath] and [LoadOptions]). Keys are camelCase as nanobot
// writes them; snake_case spellings are accepted too and turned into camelCase
// when the file is read ("agent_id" is "agentId"). A missing file is not an
// error: the defaults of [Default] apply.
//
// Environment variables override the file. A variable NANOBOT_A__B__C_D sets
// the key a.b.cD: the prefix NANOBOT_ is dropped, "__" separates the levels,
// and each level is read as an upper-case snake_case name. Variables with a
// single level, such as NANOBOT_HOME, are not configuration keys and are
// ignored. Values stay strings until they are decoded into a Go field, where
// they are read according to the field's type: "5" for a number, "true" or
// "false" for a bool, and "a,b" or a JSON list such as ["a","b"] for a list.
//
// Decoding is strict. An unknown key, or a value of the wrong type, is an
// error that names the key path (and the environment variable, when one set
// it); an unknown key comes with the closest known key when one is close.
// All problems are reported at once, sorted by key path, each as a *[KeyError].
//
// One file serves nanobot and switchboard. A key of nanobot's schema that
// switchboard does not use (agents.defaults.memoryWindow, the gateway and
// tools sections) is accepted and recorded as ignored in [Config.Report],
// which says of every key whether it is used, ignored (and why) or in error;
// `switchboard config check` prints it. The provider's name is not checked
// here: it is where the provider is built.
//
// The package knows the agent and provider sections but not the channel
// types: each channel's section is kept raw as a [Section], which the channel
// decodes into its own config struct with [Section.Decode].
package config
