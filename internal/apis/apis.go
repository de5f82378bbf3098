package apis

import "slices"

// The APIs' names, as a target's api spells them.
const (
	Completions = "openai"             // the OpenAI completions API
	Chat        = "openai-chat"        // the OpenAI chat completions API
	Responses   = "openai-responses"   // the OpenAI Responses API
	Embeddings  = "openai-embeddings"  // the OpenAI embeddings API
	Messages    = "anthropic-messages" // Anthropic's Messages API
)

// The APIs' endpoints, relative to a server's root.
const (
	PathCompletions = "/v1/completions"
	PathChat        = "/v1/chat/completions"
	PathResponses   = "/v1/responses"
	PathEmbeddings  = "/v1/embeddings"
	PathMessages    = "/v1/messages"
)

// API is one row of the table.
type API struct {
	// Name is the target's api value.
	Name string
	// Title names the API in messages: "the <Title> API".
	Title string
	// Path is the endpoint a request is posted to, appended to the
	// target's base URL.
	Path string
	// Streaming: the API answers with an event stream of generated tokens.
	// One that does not (embeddings) answers one JSON body and generates
	// no output: a request has a latency but no first token, no gaps and
	// no output tokens.
	Streaming bool
	// Conversations: a request can carry a conversation's messages, so
	// multi-turn sessions can be sent through it.
	Conversations bool
}

// table is every API, in the order messages and documentation list them.
var table = []API{
	{Name: Completions, Title: "completions", Path: PathCompletions, Streaming: true},
	{Name: Chat, Title: "chat", Path: PathChat, Streaming: true, Conversations: true},
	{Name: Responses, Title: "Responses", Path: PathResponses, Streaming: true},
	{Name: Embeddings, Title: "embeddings", Path: PathEmbeddings},
	{Name: Messages, Title: "Messages", Path: PathMessages, Streaming: true, Conversations: true},
}

// All returns the table's rows in order (a copy).
func All() []API { return slices.Clone(table) }

// Names returns the APIs' names in the table's order.
func Names() []string {
	names := make([]string, len(table))
	for i, a := range table {
		names[i] = a.Name
	}
	return names
}

// Lookup returns the API named name.
func Lookup(name string) (API, bool) {
	i := slices.IndexFunc(table, func(a API) bool { return a.Name == name })
	if i < 0 {
		return API{}, false
	}
	return table[i], true
}
