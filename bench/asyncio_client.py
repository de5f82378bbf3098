#!/usr/bin/env python3
"""A Python asyncio streaming client, the baseline for llmload's client.

It does per event what vLLM's benchmark client does (read the SSE stream,
json-decode every chunk, stamp it with a perf counter), with the standard
library only (asyncio streams, hand-written HTTP/1.1 chunked decoding), so
it is if anything lighter than aiohttp. `make bench-python` runs it against
the same zero-delay fake server as llmload's BenchmarkClientIngest.

usage: asyncio_client.py URL STREAMS TOTAL_REQUESTS MAX_TOKENS
prints one line: streams, requests, tokens, wall s, cpu s, tokens/s, tokens per cpu-s
"""
import asyncio
import json
import sys
import time
from urllib.parse import urlsplit


async def one_request(host, port, path, body):
    reader, writer = await asyncio.open_connection(host, port)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Content-Type: application/json\r\nAccept: text/event-stream\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    writer.write(head + body)
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"HTTP status {status!r}")
    chunked = False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
            chunked = True
    tokens, buf, stamps = 0, b"", []
    done = False
    while not done:
        if chunked:
            size_line = await reader.readline()
            size = int(size_line.strip().split(b";")[0], 16)
            if size == 0:
                break
            data = await reader.readexactly(size + 2)
            buf += data[:-2]
        else:
            data = await reader.read(65536)
            if not data:
                break
            buf += data
        while b"\n\n" in buf:
            event, buf = buf.split(b"\n\n", 1)
            for line in event.split(b"\n"):
                if not line.startswith(b"data:"):
                    continue
                payload = line[5:].strip()
                if payload == b"[DONE]":
                    done = True
                    break
                chunk = json.loads(payload)
                stamps.append(time.perf_counter())
                choices = chunk.get("choices") or []
                if choices and (choices[0].get("text") or (choices[0].get("delta") or {}).get("content")):
                    tokens += 1
    writer.close()
    return tokens


async def main(url, streams, total, max_tokens):
    u = urlsplit(url)
    body = json.dumps({"model": "m", "prompt": "hello", "max_tokens": max_tokens, "stream": True,
                       "stream_options": {"include_usage": True}}).encode()
    queue = asyncio.Queue()
    for _ in range(total):
        queue.put_nowait(None)
    counts = []

    async def worker():
        while not queue.empty():
            queue.get_nowait()
            counts.append(await one_request(u.hostname, u.port, "/v1/completions", body))

    wall0, cpu0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(streams)))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    tokens = sum(counts)
    print(f"streams={streams} requests={len(counts)} tokens={tokens} wall_s={wall:.3f} cpu_s={cpu:.3f} "
          f"tokens_per_s={tokens / wall:.0f} tokens_per_cpu_s={tokens / cpu:.0f}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
