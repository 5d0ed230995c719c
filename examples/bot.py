#!/usr/bin/env python3
"""A complete Lost Cities bot for the bot protocol (docs/protocol.md), stdlib only.

Try it: lostcities match "cmd:python examples/bot.py" random --deals 10
Plan: extend expeditions in small steps, open a colour when the hand holds enough points
in it, discard what the opponent cannot use, take a discard that fits an expedition.
"""

import sys


def rank(card):  # 'y7' -> 7, 'rx' (wager) -> 0
    return 0 if card[1:] == "x" else int(card[1:])


def tops(cards):  # highest rank played per colour letter (-1: not started)
    top = {}
    for c in cards:
        top[c[0]] = max(top.get(c[0], -1), rank(c))
    return top


def choose(pos, me):
    hand, deck = pos["hand"], int(pos["deck"][0])
    mine, theirs = tops(pos["expeditions " + me]), tops(pos["expeditions " + str(1 - int(me))])
    piles = {c[0]: c for c in pos["discards"]}  # bottom to top: the last one is the top
    worth = {c[0]: sum(rank(d) for d in hand if d[0] == c[0]) for c in hand}

    def gain(c):  # how good playing c is now (None: not playable, or better not)
        if rank(c) <= mine.get(c[0], 0) and not (rank(c) == 0 and mine.get(c[0], -1) <= 0):
            return None
        if rank(c) == 0:  # a wager doubles the stakes: only on a strong colour
            return worth[c[0]] - 25 if worth[c[0]] >= 25 else None
        if c[0] in mine:
            gap = rank(c) - max(mine[c[0]], 1)
            return 10 - gap if gap <= 3 or deck < 10 else None  # small steps are best
        needed = 20 if deck > 20 else 28  # open late only with a sure profit
        return worth[c[0]] - needed if worth[c[0]] >= needed else None

    def cost(c):  # how bad discarding c is: feeding the opponent first, then our loss
        feeds = c[0] in theirs and rank(c) > theirs[c[0]]
        return (feeds, worth[c[0]] + (30 if c[0] in mine else 0), rank(c))

    scored = [(gain(c), -rank(c), c) for c in hand if gain(c) is not None]
    if scored:
        action, card = "+", max(scored)[2]
    else:  # discard the card worth least to us and of no use to the opponent
        action, card = "-", min(hand, key=cost)
    draw = "."
    for colour, top in piles.items():
        usable = colour in mine and rank(top) > mine[colour] and rank(top) - mine[colour] <= 2
        if usable and not (action == "-" and colour == card[0]):
            draw = colour
    return action + card + draw


def main():
    pos, me = {}, "0"
    for line in sys.stdin:
        cmd, *args = line.split() or [""]
        if cmd == "lcp":
            print("id name examplebot\nid author the lostcities project\nlcpok")
        elif cmd == "isready":
            print("readyok")
        elif cmd == "newgame":
            pos, me = {}, args[1]
        elif cmd in ("expeditions", "known"):
            pos[cmd + " " + args[0]] = args[1:]
        elif cmd == "go":
            print("move " + choose(pos, me))
        elif cmd == "quit":
            break
        else:  # ply, deck, hand, discards, moves, ... (unknown commands: ignored)
            pos[cmd] = args
        sys.stdout.flush()


if __name__ == "__main__":
    main()
