"""A protocol bot that plays legal moves, then misbehaves at its Nth ``go``.

Usage: badbot.py MODE [N] [PIDFILE]
  crash    exit with code 3 (after a line on stderr)
  sleep    sleep 60 s instead of answering
  garbage  chatter unknown lines every turn; at turn N answer 'move banana'
  illegal  answer a well-formed move with a card it does not hold
  nonutf8  send undecodable bytes every turn; at turn N only an undecodable move
  silent   never finish the handshake
  spawn    start a grandchild 'sleep 60' (its pid written to PIDFILE), then play legally
  stubborn play legally, but outlive the end of input by 60 s (only quit or a kill ends it)
  ok       never misbehave
"""

import subprocess
import sys
import time

mode = sys.argv[1]
turn_to_fail = int(sys.argv[2]) if len(sys.argv) > 2 else 3
out = sys.stdout.buffer


def say(text):
    out.write(text.encode() + b"\n")
    out.flush()


def legal(hand):
    return "-" + hand[0] + "."  # discarding and drawing from the pile is always legal


def not_held(hand):
    for colour in "ybwgr":
        for rank in range(2, 11):
            card = colour + str(rank)
            if card not in hand:
                return "+" + card + "."
    raise AssertionError


if mode == "spawn":
    child = subprocess.Popen(["sleep", "60"])
    with open(sys.argv[3], "w") as f:
        f.write(str(child.pid))

hand = []
turns = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    cmd = words[0]
    if cmd == "lcp":
        if mode == "silent":
            continue
        say("id name badbot-" + mode)
        say("lcpok")
    elif cmd == "isready":
        say("readyok")
    elif cmd == "newgame":
        turns = 0
    elif cmd == "hand":
        hand = words[1:]
    elif cmd == "go":
        turns += 1
        failing = turns >= turn_to_fail
        if mode == "crash" and failing:
            print("badbot: crashing on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        elif mode == "sleep" and failing:
            time.sleep(60)
        elif mode == "garbage":
            say("hello referee")
            say("bestmove e2e4")
            say("move banana" if failing else "move " + legal(hand))
        elif mode == "illegal" and failing:
            say("move " + not_held(hand))
        elif mode == "nonutf8":
            out.write(b"\xff\xfe\xfd garbage\n")
            if failing:
                out.write(b"move \xff\xfe\n")
                out.flush()
            else:
                say("move " + legal(hand))
        else:
            say("info depth 1 (playing legally)")
            say("move " + legal(hand))
    elif cmd == "quit":
        sys.exit(0)
if mode == "stubborn":
    time.sleep(60)
