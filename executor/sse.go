package executor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// sseReader reads Server-Sent Events from a bufio.Reader. It has no line
// length limit (unlike bufio.Scanner): a line longer than the buffer is
// gathered piece by piece.
//
// It follows the WHATWG event-stream rules that matter for OpenAI-style
// streams: "data:" with or without one following space, comment lines
// starting with ':', LF, CRLF or bare CR line ends, several data lines joined with
// '\n', an event dispatched on a blank line, "event:" names, a leading BOM.
// Unlike the spec, an event still pending when the stream ends is dispatched
// (some servers omit the blank line after the final "data: [DONE]").
type sseReader struct {
	br      *bufio.Reader
	data    []byte // the pending event's data, lines joined with '\n'
	name    []byte // the pending event's "event:" field
	hasData bool   // a data field was seen for the pending event
	long    []byte // scratch for lines longer than the buffer
	started bool
	// skipLF: the last line ended with a CR, so an LF that follows is
	// part of that line end (CRLF), not an empty line.
	skipLF bool
}

// MaxEventBytes bounds an event's data and any one line of the stream: a
// server or proxy that sends more (one event of 1.5 GB took the client to
// 3.4 GB of memory) fails the request as oversized_event instead of
// exhausting the client, whose every result would be lost.
const MaxEventBytes = 4 << 20

// errOversized is an event or line over MaxEventBytes.
var errOversized = fmt.Errorf("an event or line of the stream is over %d MiB", MaxEventBytes>>20)

func newSSEReader(br *bufio.Reader) *sseReader {
	return &sseReader{br: br}
}

// next returns the next event's name (empty for the default "message") and
// data. Both are valid until the next call. It returns io.EOF at the end of
// the stream and any read error as is.
func (s *sseReader) next() (name, data []byte, err error) {
	s.data, s.name, s.hasData = s.data[:0], s.name[:0], false
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && s.hasData {
				return s.name, s.data, nil
			}
			return nil, nil, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.name, s.data, nil
			}
			s.name = s.name[:0]
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if len(s.data)+len(value) > MaxEventBytes {
				return nil, nil, errOversized
			}
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			s.hasData = true
		case "event":
			s.name = append(s.name[:0], value...)
		}
		// "id", "retry" and unknown fields are ignored.
	}
}

// readLine returns the next line without its end: LF, CRLF or a bare CR,
// each a line end of its own in the event-stream format. A line is
// returned as soon as its end has arrived, a bare CR's too: the LF that
// may follow a CR is skipped at the next call, never waited for. At the
// end of the stream a last unterminated line is returned first, then
// io.EOF. The line is valid until the next call.
func (s *sseReader) readLine() ([]byte, error) {
	if s.skipLF {
		// The last line ended with a CR: an LF right after it is the
		// same line end (CRLF). Peeking waits for a byte, but only once
		// the last line has been handled.
		s.skipLF = false
		if b, err := s.br.Peek(1); err == nil && b[0] == '\n' {
			s.br.Discard(1)
		}
	}
	long := false // the line is gathered in s.long, over several reads
	s.long = s.long[:0]
	for {
		if s.br.Buffered() == 0 {
			if _, err := s.br.Peek(1); err != nil {
				if errors.Is(err, io.EOF) && long && len(s.long) > 0 {
					return s.first(s.long), nil
				}
				return nil, err
			}
		}
		buf, _ := s.br.Peek(s.br.Buffered())
		// Two vectorised scans: the LF, then a CR before it (rare),
		// rather than one byte-by-byte scan for either.
		i := bytes.IndexByte(buf, '\n')
		head := buf
		if i >= 0 {
			head = buf[:i]
		}
		if j := bytes.IndexByte(head, '\r'); j >= 0 {
			i = j
		}
		if i < 0 {
			// No line end yet: keep what came and read on.
			if len(s.long)+len(buf) > MaxEventBytes+64 { // the field name and its colon
				s.long = nil // give the memory back
				return nil, errOversized
			}
			s.long = append(s.long, buf...)
			s.br.Discard(len(buf))
			long = true
			continue
		}
		line := buf[:i]
		if long {
			if len(s.long)+i > MaxEventBytes+64 {
				s.long = nil
				return nil, errOversized
			}
			s.long = append(s.long, line...)
			line = s.long
		}
		s.skipLF = buf[i] == '\r'
		s.br.Discard(i + 1)
		return s.first(line), nil
	}
}

// first drops a byte-order mark from the stream's first line.
func (s *sseReader) first(line []byte) []byte {
	if !s.started {
		s.started = true
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	return line
}

// timedReader notes when each read that returned bytes got them, so that
// an event is stamped with the arrival of its last byte rather than with
// the time it was parsed: the connection's receive time of its newest
// bytes where the kernel gives one (see stamp.go), else the time the read
// completed. Every such read also tells the stall watch, unless
// eventsOnly: then only a whole event does (progress), and comment lines,
// blank lines and half an event do not.
type timedReader struct {
	r          io.Reader
	n          int64     // bytes read
	at         time.Time // when the bytes of the last read that returned any arrived
	conn       stamped   // the response's connection, when it keeps receive times
	watch      *stallWatch
	eventsOnly bool
}

func (t *timedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.n += int64(n)
		t.at = readStamp(t.conn)
		if t.watch != nil && !t.eventsOnly {
			t.watch.note(t.at)
		}
	}
	return n, err
}

// stallWatch fails a stream that has gone limit without a byte. Reads only
// note their time (an atomic store); the one timer fires every limit at
// most and re-arms itself for the rest of the silence, rather than being
// reset on every read (a timer-heap update per token).
type stallWatch struct {
	last  atomic.Int64 // offset from stampBase of the last read's bytes
	limit time.Duration
	timer *time.Timer
	stall func()
}

// watchStalls starts a watch that calls stall after limit of silence,
// counted from now.
func watchStalls(limit time.Duration, stall func()) *stallWatch {
	w := &stallWatch{limit: limit, stall: stall}
	w.last.Store(int64(time.Since(stampBase)))
	w.timer = time.AfterFunc(limit, w.check)
	return w
}

// note records progress at at.
func (w *stallWatch) note(at time.Time) { w.last.Store(int64(at.Sub(stampBase))) }

func (w *stallWatch) check() {
	idle := time.Since(stampBase) - time.Duration(w.last.Load())
	if idle >= w.limit {
		w.stall()
		return
	}
	w.timer.Reset(w.limit - idle)
}

// stop ends the watch.
func (w *stallWatch) stop() { w.timer.Stop() }
