"""The text tables and the plot of an :class:`coupsolve.analysis.history.Analysis`.

Every rate is shown beside how often its claim is made; a rate whose events come less than
``REACH_THRESHOLD`` times a game (the claim's, or for the challenge's success rate the challenges') is in
parentheses (pale and hatched in the plot), a claim never made reads "never made" (no bar, the words on
the plot), distinct from a bluff rate of 0%.
"""

from __future__ import annotations

import math

import numpy as np

from coupsolve.analysis.claims import CLAIMS, DETERMINED, REACH_THRESHOLD


def rate(x, made, width=7, reach=None) -> str:
    """A rate as a percentage, right-aligned in ``width``.

    ``never made`` when its claim is never made (``made`` 0), ``-`` when the rate is undefined
    otherwise, in parentheses when ``reach`` (default ``made``: how often the rate's condition holds,
    a game) is below ``REACH_THRESHOLD``.
    """
    if made <= 0.0:
        return f"{'never made':>{width}}"
    if math.isnan(x):
        return f"{'-':>{width}}"
    text = f"{100 * x:.1f}%"
    return f"{'(' + text + ')' if (made if reach is None else reach) < REACH_THRESHOLD else text:>{width}}"


def table(a) -> str:
    """The analysis ``a`` as text: claims, rates by turn and by influence, card choice, hand values
    (each under the strategy and by the seat's best response)."""
    shown = a.shown_claims()
    lines = [f"game value: p0 {a.game_value[0]:+.4f}, p1 {a.game_value[1]:+.4f}", "",
             f"{'claim':<17}{'character':<18}{'made/game':>10}{'bluff':>11}{'challenged':>12}"
             f"{'chal. wins':>12}"]
    for c in shown:
        s = a.claims[c]
        lines.append(f"{s.claim:<17}{s.character:<18}{s.made:>10.3f}{rate(s.bluff, s.made, 11)}"
                     f"{rate(s.challenged, s.made, 12)}"
                     f"{rate(s.challenge_success, s.made, 12, s.made * np.nan_to_num(s.challenged))}")
    for title, rows_by in (("by turn", a.by_turn), ("by the claimant's influence", a.by_influence)):
        lines += ["", f"bluff rate {title} (made/game in brackets):",
                  f"{'':<17}" + "".join(f"{str(k):>22}" for k in rows_by)]
        for c in shown:
            lines.append(f"{CLAIMS[c]:<17}" + "".join(
                f"{rate(rows[c].bluff, rows[c].made, 11)} [{rows[c].made:7.4f}]" for rows in rows_by.values()))
    lines += ["", f"( ): what the rate counts comes less than {REACH_THRESHOLD} times a game (the claim; for "
              "chal. wins, the challenges), so the strategy there is not converged; never made: no rate "
              "(not a bluff rate of 0%)"]
    if a.choice:
        lines += ["", "card choice: probability; value to the chooser if it then plays the strategy, "
                  "if it then best-responds to the opponent's strategy, and the regret (best card's "
                  "best-response value minus this card's):"]
        for seat, dist in a.choice.items():
            br = a.choice_best_response[seat]
            best = max(br.values())
            lines.append(f"  p{seat}:")
            lines += [f"    {c:<11}{100 * p:6.1f}%  strategy {a.choice_value[seat][c]:+.4f}  "
                      f"best response {br[c]:+.4f}  regret {best - br[c]:.4f}" for c, p in dist.items()]
    if a.hand_value:
        lines += ["", "value by starting hand (the cards at the first turn): probability under the strategy; "
                  "value to the seat if it plays the strategy, if it best-responds to the opponent's "
                  "strategy from the first turn on, and the gain (hands reached under 0.1% left out):"]
        for seat, hands in a.hand_value.items():
            br = a.hand_best_response[seat]
            top = sorted(((h, pv) for h, pv in hands.items() if pv[0] >= 1e-3), key=lambda kv: -kv[1][1])
            lines.append(f"  p{seat}:")
            lines += [f"    {h:<24}{100 * p:6.1f}%  strategy {v:+.4f}  best response {br[h]:+.4f}  "
                      f"gain {br[h] - v:.4f}" for h, (p, v) in top]
    return "\n".join(lines)


def _rate_panel(ax, names, rows, values, color, label, xlabel):
    """Horizontal bars of ``values``; rarely made claims pale and hatched, never made ones named."""
    nz = [0.0 if math.isnan(v) else v for v in values]
    low = [0 < r.made < REACH_THRESHOLD for r in rows]
    bars = ax.barh(names, nz, color=color, label=label)
    for bar, is_low in zip(bars, low):
        if is_low:
            bar.set_alpha(0.35)
            bar.set_hatch("//")
    for y, r in enumerate(rows):
        if r.made <= 0.0:
            ax.text(0.02, y, "never made", va="center", fontsize="small", color="0.4")
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("claim")
    ax.invert_yaxis()


def plot(a, path) -> None:
    """Bar charts of ``a``'s bluff and challenge rates per claim and its card choice, written to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = 3 if a.choice else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 4.8))
    rows = [a.claims[c] for c in a.shown_claims()]
    names = [f"{r.claim} ({r.made:.3g}/game)" for r in rows]
    _rate_panel(axes[0], names, rows, [r.bluff for r in rows], "tab:red", "bluffed",
                "bluff rate: P(claimant lacks the card | claim made)")
    axes[0].set_title("bluff rate")
    axes[0].legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), fontsize="small")  # every colour named
    _rate_panel(axes[1], names, rows, [r.challenged for r in rows], "tab:blue", "challenged",
                "P(challenged | claim made)")
    axes[1].barh(names, [0.0 if math.isnan(r.challenged * r.challenge_success) else
                         r.challenged * r.challenge_success for r in rows], color="tab:cyan",
                 label="challenged and caught")
    axes[1].set_title("challenge rate")
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize="small")
    if a.choice:
        width = 0.8 / len(a.choice)
        for k, (seat, dist) in enumerate(a.choice.items()):
            axes[2].bar(np.arange(len(dist)) + k * width, list(dist.values()), width, label=f"p{seat}")
        axes[2].set_xticks(np.arange(len(dist)) + width * (len(a.choice) - 1) / 2, list(dist), rotation=30)
        axes[2].set_title("card choice")
        axes[2].set_xlabel("character chosen")
        axes[2].set_ylabel("probability")
        axes[2].set_ylim(0, 1)
        axes[2].legend()
    heading = a.meta.get("title", "")
    fig.suptitle(f"{heading}\npale, hatched: made under {REACH_THRESHOLD}/game (not converged)",
                 fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _pct(x) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def selection_table(s) -> str:
    """The :class:`coupsolve.analysis.selection.Selection` ``s`` as text: each rate under CFR+ and MMD
    (how often its condition holds, a game, in brackets), its interval over the epsilon-equilibria
    (the attained part after it) and its verdict."""
    solves = "; ".join(f"{name} {v['iterations']:,} iterations, exploitability {v['exploitability']:.2g}"
                       for name, v in s.solves.items())
    lines = [f"turn {s.turn} rates under CFR+, under MMD (the QRE selection) and over the "
             f"{s.epsilon:g}-equilibria ({solves}):",
             f"{'rate':<33}{'CFR+':>18}{'MMD':>18}  {'interval':<17}{'attained (made at its ends)':<32}verdict"]
    for r in s.rows:
        rng = "-" if math.isnan(r.low) else f"[{_pct(r.low)}, {_pct(r.high)}]"
        seen = "" if r.exact or math.isnan(r.seen_low) else f"[{_pct(r.seen_low)}, {_pct(r.seen_high)}]"
        if seen and not math.isnan(r.weight_low):
            seen += f" ({r.weight_low:.2g}, {r.weight_high:.2g})"
        lines.append(f"{r.subject + ' ' + r.kind:<33}{_pct(r.cfr_plus):>7} [{r.weight_cfr_plus:7.4f}]"
                     f"{_pct(r.mmd):>7} [{r.weight_mmd:7.4f}]  {rng:<17}{seen:<32}{r.verdict}")
    lines += ["", f"determined: the interval is narrower than {100 * DETERMINED:g} points; not "
              "determined: two epsilon-equilibria found that far apart (attained: the rates of the "
              "equilibria met, with how often the rate's condition holds a game at the two ends: a "
              "conditional rate is nearly free where that is nearly 0); open: neither proven (a claim's rates are bilinear, bounded from outside "
              "by one program per sequence of one player)"
              + ("" if s.intervals else "; no intervals: the tree is too large for the programs")]
    return "\n".join(lines)


def selection_plot(s, path) -> None:
    """Each rate of the selection ``s`` as a row: its interval over the epsilon-equilibria as a
    whisker (the attained part as a thick bar), its CFR+ and MMD values as markers; to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = s.rows
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rows) + 1.6))
    for y, r in enumerate(rows):
        if not math.isnan(r.low):
            ax.errorbar((r.low + r.high) / 2, y, xerr=(r.high - r.low) / 2, color="0.3", capsize=4,
                        lw=1, label="interval" if y == 0 or "interval" not in
                        ax.get_legend_handles_labels()[1] else None)
        if not math.isnan(r.seen_low):
            ax.plot([r.seen_low, r.seen_high], [y, y], color="0.75", lw=6, solid_capstyle="butt",
                    zorder=1, label="attained" if "attained" not in ax.get_legend_handles_labels()[1]
                    else None)
    ys = np.arange(len(rows))
    ax.plot([r.cfr_plus for r in rows], ys, "o", color="tab:blue", label="CFR+")
    ax.plot([r.mmd for r in rows], ys, "x", color="tab:red", mew=2, label="MMD (QRE)")
    ax.set_yticks(ys, [f"{r.subject} {r.kind}" + (" *" if r.verdict == "determined" else "")
                       for r in rows], fontsize="small")
    ax.invert_yaxis()
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel(f"rate (whisker: its range over the {s.epsilon:g}-equilibria; *: determined)")
    fig.legend(loc="lower center", ncol=4, fontsize="small")
    ax.set_title(s.meta.get("title", f"turn {s.turn} rates"), fontsize="small")
    fig.tight_layout(rect=(0, 0.5 / (0.32 * len(rows) + 1.6), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
