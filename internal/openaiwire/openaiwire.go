package openaiwire

// PathModels is the model list's endpoint, relative to a server's root.
// The APIs' endpoints are in the API table (internal/apis).
const PathModels = "/v1/models"

// The "object" of a response or a streamed chunk.
const (
	ObjectCompletion     = "text_completion"       // a completion, whole or streamed
	ObjectChatCompletion = "chat.completion"       // a whole chat completion
	ObjectChatChunk      = "chat.completion.chunk" // a streamed chat chunk
	ObjectError          = "error"                 // an error object in a stream (vLLM)
	ObjectResponse       = "response"              // a Responses API response
	ObjectList           = "list"                  // an embeddings answer
	ObjectEmbedding      = "embedding"             // one embedding of a list
)

// The Responses API streams named events ("event: <type>"), each data
// payload repeating its name in "type". These are the ones a client reads
// for timing and counts; the others (response.created, ...output_item.added,
// ...content_part.done, ...) carry no output.
const (
	EventCreated     = "response.created"
	EventInProgress  = "response.in_progress"
	EventTextDelta   = "response.output_text.delta" // {"delta": "<text>"}: answer
	EventTextDone    = "response.output_text.done"
	EventToolArgs    = "response.function_call_arguments.delta" // a tool call's arguments: answer
	EventReasoning   = "response.reasoning_text.delta"          // reasoning text (vLLM, OpenAI)
	EventSummary     = "response.reasoning_summary_text.delta"  // a reasoning summary (OpenAI)
	EventReasoningV0 = "response.reasoning.delta"               // older vLLM releases' name
	EventCompleted   = "response.completed"                     // {"response": {..., "usage": {...}}}: the end
	EventIncomplete  = "response.incomplete"                    // ended early (max_output_tokens): the end
	EventFailed      = "response.failed"                        // {"response": {"error": {...}}}
	EventError       = "error"                                  // {"message", "code"}
)

// IncompleteMaxTokens is a response's incomplete_details.reason when it
// reached max_output_tokens (the completions APIs' FinishLength).
const IncompleteMaxTokens = "max_output_tokens"

// The finish reasons a server reports on a choice's last chunk.
const (
	FinishStop   = "stop"   // the model ended the output (EOS or a stop string)
	FinishLength = "length" // the output reached max_tokens
	// FinishToolCalls: the chat answer ended with a call to a tool.
	FinishToolCalls = "tool_calls"
)

// Done is the data of the event that ends a stream: "data: [DONE]".
const Done = "[DONE]"

// DoneEvent is the whole terminating event as servers write it.
const DoneEvent = "data: " + Done + "\n\n"
