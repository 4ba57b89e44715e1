#!/usr/bin/env python3
"""nanobot's mailbox algorithm, alone, for the side-by-side benchmark.

This reproduces the file operations of nanobot's mailbox channel
(nanobot/channels/mailbox.py: MailboxManager.send, poll and
mark_processed, and what MailboxChannel.send puts in a message) with the
standard library only, so that `go run ./bench/mailbox -mode nanobot`
can time nanobot's way of writing and draining a mailbox beside
switchboard's on the same disk, in the same run. It does what nanobot
does and nothing more: no fsync, no claim, no lock.

  write: N times what nanobot's send does: make <to>/inbox and
         <to>/processed (exist_ok), name the file
         <unix-ms>_<from>_<8 hex>.msg.json, fill in id, from, to and
         timestamp, write the JSON to <name>.msg.tmp beside it and
         os.replace it into place.
  drain: nanobot's poll() (sorted glob of inbox/*.msg.json, each file read
         and parsed into a list, all before the first is handed on), then
         mark_processed() for each (an exists check, then os.replace into
         processed/), in the order poll returned them.

Each prints one line of JSON on stdout: {"op", "n", "seconds", ...}, where
seconds is the algorithm's own time (after the interpreter started), and
exits 1 with a message on stderr if the count is not what was asked.
"""

import argparse
import json
import os
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path


def ensure_dirs(root: Path, agent: str) -> None:
    """nanobot's _ensure_dirs: inbox/ and processed/ of agent."""
    (root / agent / "inbox").mkdir(parents=True, exist_ok=True)
    (root / agent / "processed").mkdir(parents=True, exist_ok=True)


def channel_message(sender: str, to: str, text: str) -> dict:
    """The message MailboxChannel.send hands to the manager for a new send
    (ttl 3 spent by one hop, the sender appended to the trace)."""
    return {
        "type": "message",
        "from": sender,
        "to": to,
        "content": {"parts": [{"type": "text", "text": text}]},
        "ttl": 2,
        "trace": [sender],
    }


def send(root: Path, sender: str, to: str, msg: dict) -> None:
    """One MailboxManager.send: an atomic write into to's inbox."""
    ensure_dirs(root, to)
    msg = dict(msg)
    ts = int(time.time() * 1000)
    name = "%d_%s_%s.msg.json" % (ts, sender, uuid.uuid4().hex[:8])
    msg.setdefault("id", "msg_%d_%s" % (ts, sender))
    msg.setdefault("from", sender)
    msg.setdefault("to", to)
    msg.setdefault("timestamp", datetime.now(timezone.utc).isoformat())
    final = root / to / "inbox" / name
    staging = final.with_suffix(".tmp")  # X.msg.json -> X.msg.tmp
    staging.write_text(json.dumps(msg, ensure_ascii=False), encoding="utf-8")
    os.replace(staging, final)


def poll(root: Path, agent: str) -> list:
    """One MailboxManager.poll: every waiting message, read and parsed."""
    inbox = root / agent / "inbox"
    if not inbox.is_dir():
        return []
    out = []
    for path in sorted(inbox.glob("*.msg.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["_filename"] = path.name
        out.append(data)
    return out


def mark_processed(root: Path, agent: str, name: str) -> None:
    """One MailboxManager.mark_processed: inbox/name -> processed/name."""
    src = root / agent / "inbox" / name
    dst = root / agent / "processed" / name
    if src.exists():
        os.replace(src, dst)


def cmd_write(args) -> dict:
    root = Path(args.root)
    root.mkdir(parents=True, exist_ok=True)
    msg = channel_message(args.sender, args.to, "m" * args.size)
    start = time.perf_counter()
    for _ in range(args.n):
        send(root, args.sender, args.to, msg)
    took = time.perf_counter() - start
    return {"op": "write", "n": args.n, "seconds": took}


def cmd_drain(args) -> dict:
    root = Path(args.root)
    start = time.perf_counter()
    messages = poll(root, args.agent)
    polled = time.perf_counter()
    for msg in messages:
        name = msg.pop("_filename", "")
        if name:
            mark_processed(root, args.agent, name)
    end = time.perf_counter()
    if len(messages) != args.n:
        raise SystemExit("nanobot_algo.py drain: %d messages in %s/inbox, want %d"
                         % (len(messages), root / args.agent, args.n))
    return {"op": "drain", "n": len(messages), "seconds": end - start,
            "poll_seconds": polled - start, "mark_seconds": end - polled}


def main(argv) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="op", required=True)
    w = sub.add_parser("write", help="send N messages as nanobot's send does")
    w.add_argument("--root", required=True, help="mailbox root")
    w.add_argument("--from", dest="sender", required=True, help="sending agent")
    w.add_argument("--to", required=True, help="receiving agent")
    w.add_argument("--n", type=int, required=True, help="messages to send")
    w.add_argument("--size", type=int, default=1024, help="bytes of text per message")
    d = sub.add_parser("drain", help="poll once and mark every message processed")
    d.add_argument("--root", required=True, help="mailbox root")
    d.add_argument("--agent", required=True, help="agent whose inbox to drain")
    d.add_argument("--n", type=int, required=True, help="messages expected in the inbox")
    args = p.parse_args(argv)
    if args.n < 0:
        p.error("--n must not be negative")
    result = cmd_write(args) if args.op == "write" else cmd_drain(args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
