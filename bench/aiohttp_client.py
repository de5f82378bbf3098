#!/usr/bin/env python3
"""vLLM's benchmark client loop, as the baseline for llmload's client.

The per-chunk loop is the one vLLM's benchmark uses for OpenAI completions
(aiohttp, `async for chunk_bytes in response.content`, strip, drop the
"data: " prefix, json.loads, perf_counter per chunk), with one shared
session; no code of vLLM's is copied. `make bench-python` runs it against
the same fake server as llmload's client benchmarks.

usage: aiohttp_client.py URL STREAMS TOTAL_REQUESTS MAX_TOKENS
prints one line: streams, requests, tokens, wall s, cpu s, tokens/s, tokens per cpu-s
"""
import asyncio
import json
import sys
import time

import aiohttp


async def one_request(session, url, payload):
    tokens = 0
    last = time.perf_counter()
    itl = []
    async with session.post(url, json=payload) as response:
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status}")
        async for chunk_bytes in response.content:
            chunk_bytes = chunk_bytes.strip()
            if not chunk_bytes:
                continue
            chunk = chunk_bytes.decode("utf-8")
            if chunk.startswith("data: "):
                chunk = chunk[len("data: "):]
            if chunk == "[DONE]":
                continue
            data = json.loads(chunk)
            if data.get("choices") and data["choices"][0].get("text"):
                now = time.perf_counter()
                itl.append(now - last)
                last = now
                tokens += 1
    return tokens


async def main(url, streams, total, max_tokens):
    payload = {"model": "m", "prompt": "hello", "max_tokens": max_tokens, "stream": True,
               "stream_options": {"include_usage": True}}
    connector = aiohttp.TCPConnector(limit=streams)
    timeout = aiohttp.ClientTimeout(total=6 * 60 * 60)
    sem = asyncio.Semaphore(streams)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        async def limited():
            async with sem:
                return await one_request(session, url + "/v1/completions", payload)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        counts = await asyncio.gather(*(limited() for _ in range(total)))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    tokens = sum(counts)
    print(f"streams={streams} requests={len(counts)} tokens={tokens} wall_s={wall:.3f} cpu_s={cpu:.3f} "
          f"tokens_per_s={tokens / wall:.0f} tokens_per_cpu_s={tokens / cpu:.0f}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
