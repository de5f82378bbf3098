package anthropicwire

// The request headers of the API: the key goes in HeaderKey (not in
// "Authorization: Bearer"), and every request names the API version it
// was written for.
const (
	HeaderKey     = "X-Api-Key"
	HeaderVersion = "Anthropic-Version"
	// Version is the API version requests are written for: the only one
	// Anthropic has published for the Messages API.
	Version = "2023-06-01"
)

// The stream's events. Each is named ("event: message_start") and its
// data repeats the name in "type". A stream is message_start, then per
// content block content_block_start, content_block_delta..., and
// content_block_stop, then message_delta (the stop reason and the
// cumulative usage) and message_stop; ping may come anywhere, and error
// ends a stream that failed.
const (
	EventMessageStart = "message_start" // {"message": {..., "model", "usage": {"input_tokens", ...}}}
	EventBlockStart   = "content_block_start"
	EventBlockDelta   = "content_block_delta" // {"index", "delta": {"type": <a Delta type>, ...}}
	EventBlockStop    = "content_block_stop"
	EventMessageDelta = "message_delta" // {"delta": {"stop_reason", ...}, "usage": {"output_tokens", ...}}
	EventMessageStop  = "message_stop"  // the end
	EventPing         = "ping"          // a keep-alive
	EventError        = "error"         // {"error": {"type": <an error type>, "message"}}
)

// The types of a content block delta, and the field that carries each
// one's text.
const (
	DeltaText      = "text_delta"       // "text": the answer
	DeltaThinking  = "thinking_delta"   // "thinking": extended thinking (reasoning)
	DeltaInputJSON = "input_json_delta" // "partial_json": a tool call's input, a fragment of JSON
	DeltaSignature = "signature_delta"  // "signature": the thinking block's signature, not generated text
)

// The types of a content block (content_block_start's content_block).
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	BlockToolUse  = "tool_use" // {"id", "name", "input": {}}: its input follows as input_json_delta
	// BlockImage is a user message's image: {"source": {"type": "base64",
	// "media_type", "data"}} or {"source": {"type": "url", "url"}}; the
	// media types ImageMediaTypes lists.
	BlockImage = "image"
	// BlockToolResult is a user message's block answering a tool_use:
	// {"tool_use_id", "content"}.
	BlockToolResult = "tool_result"
)

// The stop reasons a message_delta reports.
const (
	StopEndTurn   = "end_turn"      // the model ended its turn
	StopSequence  = "stop_sequence" // a stop sequence was generated
	StopMaxTokens = "max_tokens"    // the output reached max_tokens
	StopToolUse   = "tool_use"      // the model called a tool
)

// The error types of an error body or event, {"type": "error", "error":
// {"type": <one of these>, "message": ...}}, with the HTTP status
// Anthropic answers each with.
const (
	ErrInvalidRequest = "invalid_request_error" // 400
	ErrAuthentication = "authentication_error"  // 401
	ErrPermission     = "permission_error"      // 403
	ErrNotFound       = "not_found_error"       // 404
	ErrTooLarge       = "request_too_large"     // 413
	ErrRateLimit      = "rate_limit_error"      // 429
	ErrAPI            = "api_error"             // 500
	ErrOverloaded     = "overloaded_error"      // 529
)

// StatusOverloaded is the HTTP status of overloaded_error: 529, which is
// not a standard HTTP status.
const StatusOverloaded = 529

// ImageMediaTypes are the media types an image block's base64 source may
// have, as Anthropic's vision guide lists them.
var ImageMediaTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}
