"""Writes rules.json (a ShareGPT-format fixture) and rules-reference.json:
what vLLM's ShareGPTDataset rules pick from it, computed with CPython's
random module, counting tokens as the tests' wordTokenizer does (one token
per whitespace-separated word, plus one BOS with special tokens).

Run from this folder: python3 make_reference.py (tests never call it)."""
import json
import random

gen = random.Random(2024)


def words(n):
    return " ".join("w%d" % gen.randint(1, 999) for _ in range(n))


def conv(p, r):
    return {"conversations": [{"from": "human", "value": p}, {"from": "gpt", "value": r}]}


entries = [
    {"id": "no-conversations"},
    {"conversations": [{"from": "human", "value": words(5)}]},
    {"conversations": []},
    conv(words(2), words(10)),
    conv(words(1), words(10)),
    conv(words(10), words(1)),
    conv(words(1100), words(10)),
    conv(words(600), words(1500)),
    {"conversations": [{"from": "human", "value": words(6)}, {"from": "gpt", "value": words(8)},
                       {"from": "human", "value": words(3)}, {"from": "gpt", "value": words(9)}]},
    conv("w1 \"quoted\" w2\nw3\tw4 \u00e9t\u00e9", words(7)),
]
for _ in range(30):
    entries.append(conv(words(gen.randint(1, 40)), words(gen.randint(1, 60))))
json.dump(entries, open("rules.json", "w"), indent=1)


def count(text):
    return len(text.split()) + 1


def sample(seed, num, output_len=None, min_len=4, max_prompt=1024, max_total=2048, oversample=True,
           min_prompt=None, min_output=None):
    min_prompt = min_len if min_prompt is None else min_prompt
    min_output = min_len if min_output is None else min_output
    skipped = {}
    data = []
    for i, e in enumerate(entries):
        if "conversations" not in e:
            skipped["no_conversations"] = skipped.get("no_conversations", 0) + 1
        elif len(e["conversations"]) < 2:
            skipped["fewer_than_2_turns"] = skipped.get("fewer_than_2_turns", 0) + 1
        else:
            data.append((i, e))
    random.seed(seed)
    random.shuffle(data)
    samples, examined = [], 0
    for i, e in data:
        if len(samples) >= num:
            break
        examined += 1
        p = count(e["conversations"][0]["value"])
        o = count(e["conversations"][1]["value"]) if output_len is None else output_len
        rule = None
        if p < min_prompt:
            rule = "prompt_too_short"
        elif output_len is None and o < min_output:
            rule = "output_too_short"
        elif p > max_prompt:
            rule = "prompt_too_long"
        elif p + o > max_total:
            rule = "total_too_long"
        if rule:
            skipped[rule] = skipped.get(rule, 0) + 1
            continue
        samples.append({"index": i, "prompt_len": p, "output_len": o})
    over = 0
    if oversample and len(samples) < num:
        random.seed(seed)
        extra = random.choices(samples, k=num - len(samples))
        over = len(extra)
        samples += extra
    return {"seed": seed, "num_prompts": num, "output_len": output_len or 0, "oversample": oversample,
            "min_prompt_tokens": min_prompt, "min_output_tokens": min_output,
            "max_prompt_tokens": max_prompt, "max_total_tokens": max_total,
            "read": len(entries), "examined": examined, "oversampled": over, "skipped": skipped,
            "samples": samples}


cases = [
    sample(0, 10),
    sample(1, 100),
    sample(42, 100, oversample=False),
    sample(5, 20, output_len=50),
    sample(0, 15, min_prompt=10, min_output=6, max_prompt=30, max_total=60),
    sample(-3, 40, output_len=1000, max_total=1030),
]
json.dump(cases, open("rules-reference.json", "w"), indent=1)
