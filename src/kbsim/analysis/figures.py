"""The plotly figures of the report page, from the statistics of :func:`kbsim.analysis.arms.compute`."""

from __future__ import annotations

import html
import json
from typing import Any

from kbsim.analysis import metrics as M
from kbsim.analysis.arms import FIGURE_METRICS, METRICS, SEAT_GAP
from kbsim.analysis.reading import ReportInput
from kbsim.analysis.seats import starts_text
from kbsim.analysis.tables import delta_text
from kbsim.sim.conditions import Condition


# ------------------------------------------------------------------ figures
def _esc(text: Any) -> str:
    """Escape user text for plotly labels (plotly shows entities as the characters they stand for)."""
    return html.escape(str(text), quote=True)


_PALETTE = [
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#393b79",
    "#ad494a",
    "#637939",
    "#8c6d31",
    "#843c39",
    "#7b4173",
    "#3182bd",
    "#e6550d",
    "#31a354",
    "#756bb1",
]


_BOT_PALETTE = ["#3b3b3b", "#b15928", "#6a3d9a", "#1b9e77", "#e7298a", "#a6761d"]  # bots: apart from the arms


PALETTE = _PALETTE  # colours of a page's series, in order


def _colours(conditions: list[Condition]) -> dict[str, str]:
    return {c.key: _PALETTE[i % len(_PALETTE)] for i, c in enumerate(conditions)}


def base_layout(height: int) -> dict:
    """The layout every figure of a kbsim page starts from (white template, legend at the right)."""
    # legend to the right of the panels, below the plotly toolbar (which sits at the top right)
    return {
        "template": "plotly_white",
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 60, "b": 60},
        "legend": {"orientation": "v", "yanchor": "top", "y": 0.92, "x": 1.02, "xanchor": "left"},
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 12},
    }


def _subplots(cols: int, titles: list[str], shared_y: bool = True, **kw):
    from plotly.subplots import make_subplots

    return make_subplots(
        rows=1,
        cols=max(1, cols),
        subplot_titles=[_esc(t) for t in titles],
        shared_yaxes=shared_y,
        horizontal_spacing=0.06 if shared_y else 0.09,
        **kw,
    )


def _err(rates: list[dict]) -> dict:
    return {
        "type": "data",
        "symmetric": False,
        "array": [r["high"] - r["rate"] for r in rates],
        "arrayminus": [r["rate"] - r["low"] for r in rates],
        "thickness": 1.2,
        "width": 3,
    }


_RATE_HOVER = (
    "<b>%{fullData.name}</b><br>%{x}: %{y:.1%} [%{customdata[1]:.1%}, %{customdata[2]:.1%}]"
    "<br>%{customdata[3]:,} of %{customdata[0]:,} games<extra></extra>"
)


def _rate_custom(rates: list[dict]) -> list[list]:
    return [[r["n"], r["low"], r["high"], r["k"]] for r in rates]


def _fig_seats(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    ps = st["players"]
    fig = _subplots(len(ps), [f"{p} players" for p in ps])
    for c in inp.conditions:
        for k, p in enumerate(ps, start=1):
            g = st["groups"].get((c.key, p))
            if g is None:
                continue
            rates = g["seats"] + [g["shared"], g["no_winner"]]
            x = [str(s) for s in range(p)] + ["shared", "none"]
            fig.add_trace(
                go.Bar(
                    x=x,
                    y=[r["rate"] for r in rates],
                    name=_esc(c.label),
                    legendgroup=c.key,
                    showlegend=k == 1,
                    marker_color=colours[c.key],
                    error_y=_err(rates),
                    customdata=_rate_custom(rates),
                    hovertemplate=_RATE_HOVER,
                ),
                row=1,
                col=k,
            )
    for k, p in enumerate(ps, start=1):
        ax = "" if k == 1 else str(k)
        fig.add_shape(
            type="line",
            xref=f"x{ax} domain",
            yref=f"y{ax}",
            x0=0,
            x1=1,
            y0=1 / p,
            y1=1 / p,
            line={"dash": "dash", "color": "#555", "width": 1},
        )
    fig.update_layout(**base_layout(440), barmode="group")
    fig.update_xaxes(title_text="seat won alone · shared win · no winner", tickangle=0, title_font_size=11)
    for k, p in enumerate(ps, start=1):
        if p >= 4:  # seven or more categories in a quarter of the width: upright labels run into each other
            fig.update_xaxes(tickangle=-45, row=1, col=k)
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    fig.update_yaxes(title_text="share of games", row=1, col=1)
    return fig


def _fig_end(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    ps = st["players"]
    kinds = [("stalemate", "stalemate"), ("turn_limit", "turn limit"), ("shared", "shared win")]
    fig = _subplots(len(kinds), [t for _, t in kinds], shared_y=False)
    for c in inp.conditions:
        for k, (key, _) in enumerate(kinds, start=1):
            have = [p for p in ps if (c.key, p) in st["groups"]]
            rates = [st["groups"][(c.key, p)][key] for p in have]
            fig.add_trace(
                go.Bar(
                    x=[f"{p} players" for p in have],
                    y=[r["rate"] for r in rates],
                    name=_esc(c.label),
                    legendgroup=c.key,
                    showlegend=k == 1,
                    marker_color=colours[c.key],
                    error_y=_err(rates),
                    customdata=_rate_custom(rates),
                    hovertemplate=_RATE_HOVER,
                ),
                row=1,
                col=k,
            )
    fig.update_layout(**base_layout(400), barmode="group")
    fig.update_yaxes(tickformat=".1%", rangemode="tozero")
    fig.update_yaxes(title_text="share of games", row=1, col=1)
    fig.update_xaxes(title_text="player count")
    return fig


def _fig_turns_box(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    fig = go.Figure()
    for c in inp.conditions:
        have = [p for p in st["players"] if (c.key, p) in st["groups"]]
        t = [st["groups"][(c.key, p)]["turns"] for p in have]
        n = [st["groups"][(c.key, p)]["n"] for p in have]
        fig.add_trace(
            go.Box(
                x=[f"{p} players" for p in have],
                name=_esc(c.label),
                marker_color=colours[c.key],
                q1=[x["q1"] for x in t],
                median=[x["median"] for x in t],
                q3=[x["q3"] for x in t],
                lowerfence=[x["p5"] for x in t],
                upperfence=[x["p95"] for x in t],
                mean=[x["mean"] for x in t],
                boxpoints=False,
                customdata=n,
            )
        )
    fig.update_layout(
        **base_layout(420), boxmode="group", yaxis_title="turns per game (all seats)", xaxis_title="player count"
    )
    return fig


def _fig_turns_hist(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    ps = st["players"]
    fig = _subplots(len(ps), [f"{p} players" for p in ps], shared_y=False)
    for k, p in enumerate(ps, start=1):
        h = st["hist"][p]
        for c in inp.conditions:
            share = h["share"].get(c.key)
            if share is None:
                continue
            fig.add_trace(
                go.Scatter(
                    x=h["edges"],
                    y=share,
                    mode="lines",
                    line={"shape": "hv", "width": 1.6},
                    name=_esc(c.label),
                    legendgroup=c.key,
                    showlegend=k == 1,
                    marker_color=colours[c.key],
                    hovertemplate="<b>%{fullData.name}</b><br>turns %{x}+ : %{y:.1%} of games<extra></extra>",
                ),
                row=1,
                col=k,
            )
    fig.update_layout(**base_layout(400))
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    fig.update_xaxes(title_text="turns per game")
    fig.update_yaxes(title_text="share of games", row=1, col=1)
    return fig


def _fig_deltas(inp: ReportInput, st: dict, labels: dict):
    import plotly.graph_objects as go

    metrics = [m for m in (SEAT_GAP, *METRICS) if m[0] in FIGURE_METRICS]
    rows = {}
    for d in st["deltas"]:
        rows.setdefault((d["b"], d["a"], d["players"]), {})[d["metric"]] = d
    keys = list(rows)
    ylab = [_esc(f"{labels[b]} − {labels[a]} · {p}p") for b, a, p in keys]
    fig = _subplots(len(metrics), [lab for _, lab, _ in metrics])  # the unit is on each x axis
    in_legend: set[str] = set()
    # (kind, legend name, colour, symbol): resolved, not resolved, and identical on every deal (the arm's bots
    # never did what differs: not a measured "no effect", so drawn apart)
    kinds = (
        ("resolved", f"resolved (adjusted p < 0.05, {M.ADJUSTMENT_NAME})", "#1f4e9c", "circle"),
        ("open", "not resolved after adjustment", "#9a9a9a", "circle-open"),
        ("identical", "identical on every deal (nothing measured)", "#c07000", "x-thin-open"),
    )

    def kind_of(pd) -> str:
        return "identical" if pd.identical else "resolved" if pd.resolved else "open"

    for k, (m, _, unit) in enumerate(metrics, start=1):
        scale = 100 if unit == "pp" else 1
        for kind, name, colour, symbol in kinds:
            xs, ys, err, err_minus, cd = [], [], [], [], []
            for key, y in zip(keys, ylab, strict=True):
                d = rows[key].get(m)
                if d is None or d["delta"].n < 2 or kind_of(d["delta"]) != kind:
                    continue
                pd = d["delta"]
                xs.append(pd.mean * scale)
                ys.append(y)
                err.append((pd.high - pd.mean) * scale)  # a bootstrap interval need not be symmetric
                err_minus.append((pd.mean - pd.low) * scale)
                v, interval, status = delta_text(d)
                cd.append([v, interval, status, pd.n])
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="markers",
                    name=name,
                    legendgroup=kind,
                    showlegend=bool(xs) and kind not in in_legend,  # first panel with such points
                    marker={"color": colour, "size": 8, "symbol": symbol},
                    error_x={"type": "data", "array": err, "arrayminus": err_minus, "thickness": 1.4, "width": 3},
                    customdata=cd,
                    hovertemplate="%{y}<br>%{customdata[0]} %{customdata[1]}<br>%{customdata[2]}<br>"
                    "%{customdata[3]:,} paired deals<extra></extra>",
                ),
                row=1,
                col=k,
            )
            if xs:
                in_legend.add(kind)
        ax = "" if k == 1 else str(k)
        fig.add_shape(
            type="line", xref=f"x{ax}", yref=f"y{ax} domain", x0=0, x1=0, y0=0, y1=1, line={"color": "#333", "width": 1}
        )
    fig.update_layout(**base_layout(160 + 26 * max(1, len(keys))))
    fig.update_yaxes(autorange="reversed", categoryorder="array", categoryarray=ylab)
    for k, (_, _, unit) in enumerate(metrics, start=1):
        fig.update_xaxes(title_text="B − A (percentage points)" if unit == "pp" else f"B − A ({unit})", row=1, col=k)
    return fig


def _fig_sweep(inp: ReportInput, st: dict, colours: dict):
    import plotly.graph_objects as go

    sw = inp.sweep
    metrics = [
        ("seat0", "first-player sole-win rate"),
        ("turns", "mean turns per game"),
        ("stalemate", "stalemate rate"),
    ]
    fig = _subplots(len(metrics), [t for _, t in metrics], shared_y=False)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in sw.values)
    xs_all = sw.values if numeric else [_esc(json.dumps(v) if not isinstance(v, str) else v) for v in sw.values]
    dashes = ["solid", "dash", "dot", "dashdot", "longdash"]
    line = 0
    for ai, arm in enumerate(sw.arms):
        for pi, p in enumerate(st["players"]):
            xs, ys = {m: [] for m, _ in metrics}, {m: [] for m, _ in metrics}
            lo, hi, ns = {m: [] for m, _ in metrics}, {m: [] for m, _ in metrics}, []
            for v, xv in zip(sw.values, xs_all, strict=True):
                key = sw.keys[(arm, json.dumps(v, sort_keys=True))]
                g = st["groups"].get((key, p))
                if g is None:
                    continue
                ns.append(g["n"])
                for m, _ in metrics:
                    if m == "turns":
                        y, a, b = g["turns"]["mean"], g["turns"]["low"], g["turns"]["high"]
                    else:
                        r = g["seats"][g["first"]] if m == "seat0" else g[m]
                        y, a, b = r["rate"], r["low"], r["high"]
                    xs[m].append(xv)
                    ys[m].append(y)
                    lo[m].append(y - a)
                    hi[m].append(b - y)
            name = f"{p} players" if len(sw.arms) == 1 else f"{arm} · {p} players"
            colour = _PALETTE[line % len(_PALETTE)]
            line += 1
            for k, (m, _) in enumerate(metrics, start=1):
                fmt = ":.1f" if m == "turns" else ":.1%"
                fig.add_trace(
                    go.Scatter(
                        x=xs[m],
                        y=ys[m],
                        mode="lines+markers",
                        name=_esc(name),
                        legendgroup=f"{ai}-{pi}",
                        showlegend=k == 1,
                        line={"color": colour, "dash": dashes[ai % len(dashes)]},
                        error_y={"type": "data", "symmetric": False, "array": hi[m], "arrayminus": lo[m]},
                        customdata=ns,
                        hovertemplate=f"<b>%{{fullData.name}}</b><br>{_esc(sw.option)} = %{{x}}: "
                        f"%{{y{fmt}}}<br>%{{customdata:,}} games<extra></extra>",
                    ),
                    row=1,
                    col=k,
                )
    fig.update_layout(**base_layout(420))
    fig.update_xaxes(title_text=_esc(sw.option))
    if numeric:
        fig.update_xaxes(tickmode="array", tickvals=list(sw.values))
    fig.update_yaxes(tickformat=".0%", col=1)
    fig.update_yaxes(tickformat=".1%", col=3)
    fig.update_yaxes(title_text="share of games", col=1)
    fig.update_yaxes(title_text="turns per game", col=2)
    fig.update_yaxes(title_text="share of games", col=3)
    return fig


def _fig_bots(inp: ReportInput, st: dict, labels: dict):
    import plotly.graph_objects as go

    conds = list(dict.fromkeys(b["condition"] for b in st["bots"]))
    fig = _subplots(len(conds), [labels[c] for c in conds])
    bots = sorted({b["bot"] for b in st["bots"]})
    shown: set[str] = set()
    for k, c in enumerate(conds, start=1):
        for bi, bot in enumerate(bots):
            rows = [b for b in st["bots"] if b["condition"] == c and b["bot"] == bot]
            if not rows:
                continue
            first = bot not in shown
            shown.add(bot)
            fig.add_trace(
                go.Bar(
                    x=[f"{r['players']} players" for r in rows],
                    y=[r["rate"] for r in rows],
                    name=_esc(bot),
                    legendgroup=bot,
                    showlegend=first,
                    marker_color=_BOT_PALETTE[bi % len(_BOT_PALETTE)],
                    error_y=_err(rows),
                    customdata=_rate_custom(rows),
                    hovertemplate=_RATE_HOVER,
                ),
                row=1,
                col=k,
            )
            fig.add_trace(
                go.Scatter(
                    x=[f"{r['players']} players" for r in rows],
                    y=[r["fair"] for r in rows],
                    mode="markers",
                    marker={"symbol": "line-ew-open", "size": 26, "color": _BOT_PALETTE[bi % len(_BOT_PALETTE)]},
                    name=_esc(f"{bot}: fair share"),
                    legendgroup=bot,
                    showlegend=first,
                    hovertemplate="fair share %{y:.1%}<extra></extra>",
                ),
                row=1,
                col=k,
            )
    fig.update_layout(**base_layout(420), barmode="group")
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    fig.update_yaxes(title_text="share of games won alone", row=1, col=1)
    fig.update_xaxes(title_text="player count")
    return fig


def _fig_char(inp: ReportInput, st: dict, colours: dict, kind: str):
    """Small multiples, one panel per player count, of the ranked arm only (at most ~10 bars per panel)."""
    import plotly.graph_objects as go

    ch = st["characters"]
    rows = [r for r in ch[kind] if r["condition"] == ch["base"]]
    ps = sorted({r["players"] for r in rows})
    fig = _subplots(len(ps), [f"{p} players" for p in ps], shared_y=True)
    colour = colours.get(ch["base"], _PALETTE[0])
    for k, p in enumerate(ps, start=1):
        rs = sorted((r for r in rows if r["players"] == p), key=lambda r: r["name"])
        if kind == "plays":
            y = [r["per_game"] for r in rs]
            err = {
                "type": "data",
                "symmetric": False,
                "array": [r["per_game_high"] - r["per_game"] for r in rs],
                "arrayminus": [r["per_game"] - r["per_game_low"] for r in rs],
            }
            cd = [[r["games"], r["share"], r["plays"]] for r in rs]
            hover = (
                "%{x}: %{y:.2f} plays per game<br>played in %{customdata[1]:.1%} of %{customdata[0]:,} games"
                "<extra></extra>"
            )
        else:
            y = [r["lift"] for r in rs]
            err = {
                "type": "data",
                "symmetric": False,
                "array": [r["high"] - r["lift"] for r in rs],
                "arrayminus": [r["lift"] - r["low"] for r in rs],
            }
            cd = [[r["rate_played"], r["n_played"], r["rate_not"], r["n_not"], r["p_adj"]] for r in rs]
            hover = (
                "%{x}: lift %{y:+.1%}<br>played: %{customdata[0]:.1%} of %{customdata[1]:,} seat-games<br>"
                "not played: %{customdata[2]:.1%} of %{customdata[3]:,}<br>Holm-adjusted p %{customdata[4]:.3f}"
                "<extra></extra>"
            )
        fig.add_trace(
            go.Bar(
                x=[_esc(r["name"]) for r in rs],
                y=y,
                showlegend=False,
                marker_color=colour,
                error_y=err,
                customdata=cd,
                hovertemplate=hover,
            ),
            row=1,
            col=k,
        )
    fig.update_layout(**base_layout(420))
    fig.update_xaxes(tickangle=-45, title_text="character")
    if kind == "lift":
        fig.update_yaxes(tickformat="+.0%")
        fig.update_yaxes(title_text="sole-win rate, played − not (pp)", row=1, col=1)
    else:
        fig.update_yaxes(title_text="plays per game (all seats)", row=1, col=1)
    return fig


def build_figures(inp: ReportInput, st: dict) -> list[dict]:
    """The page's figures: a list of dicts ``id, section, title, caption, json`` (escaped plotly JSON).

    Args:
        inp: report input.
        st: statistics from :func:`compute`.
    """
    colours = _colours(inp.conditions)
    labels = {c.key: c.label for c in inp.conditions}
    figs: list[tuple[str, str, str, Any]] = [
        (
            "seats",
            "Win rate by seat",
            f"Share of games won alone by each seat ({starts_text(inp.seats)}), and shared wins and games "
            "without a winner shown apart; the three add up to 100%. Error bars: 95% Wilson intervals. "
            "Dashed line: the fair share 1/P.",
            _fig_seats(inp, st, colours),
        ),
        (
            "end",
            "How games end",
            "Stalemate and turn-limit rates, and games ending in a shared win (a tie for fewest cards), "
            "with 95% Wilson intervals.",
            _fig_end(inp, st, colours),
        ),
        (
            "turns-box",
            "Game length",
            "Turns per game (all seats together): box = quartiles, line = median, dashed = mean, whiskers = 5th and "
            "95th percentiles.",
            _fig_turns_box(inp, st, colours),
        ),
        (
            "turns-hist",
            "Game length distribution",
            "Share of games by number of turns; the last bin also holds the longest 0.5% of games.",
            _fig_turns_hist(inp, st, colours),
        ),
    ]
    if any(d["delta"].n >= 2 for d in st["deltas"]):
        figs.insert(
            0,
            (
                "deltas",
                "Paired differences against the baseline",
                "Each point is arm B minus arm A (on the same deals unless marked independent samples), "
                "with its 95% interval; filled: resolved after Holm's adjustment for every difference on the "
                "page, open: not resolved, x: identical on every deal (the bots never did what the arm "
                "changes). Largest seat gap: left of 0, arm B is closer to fair than arm A.",
                _fig_deltas(inp, st, labels),
            ),
        )
    if inp.sweep is not None:
        figs.insert(
            1,
            (
                "sweep",
                f"Sweep of {inp.sweep.option}",
                "Each line is one player count; error bars are 95% intervals (Wilson for rates, normal for the mean).",
                _fig_sweep(inp, st, colours),
            ),
        )
    if st["bots"]:
        figs.append(
            (
                "bots",
                "Bots against each other",
                "Share of games won alone by each bot of a mixed lineup (every seat rotation on the same deals), "
                "with 95% Wilson intervals; the bar marker is the bot's fair share (its seats / P).",
                _fig_bots(inp, st, labels),
            )
        )
    if st["characters"]:
        base_label = labels.get(st["characters"]["base"], "")
        figs.append(
            (
                "char-plays",
                "Plays per character",
                f"Arm {base_label}: mean plays per game of each character (all seats), with a 95% normal "
                "interval; one panel per player count. Every arm's numbers are in the tables below.",
                _fig_char(inp, st, colours, "plays"),
            )
        )
        figs.append(
            (
                "char-lift",
                "Win-rate lift of playing a character",
                f"Arm {base_label}: sole-win rate of the seat-games in which the seat played the character "
                "minus that of the other seat-games, with Newcombe 95% intervals. Observational: see the notes.",
                _fig_char(inp, st, colours, "lift"),
            )
        )
    return embed_figures(figs)


def embed_figures(figs: list[tuple[str, str, str, Any]]) -> list[dict]:
    """Figures as a page embeds them (``templates/_figures.html.j2`` draws them).

    Args:
        figs: ``(section id, title, caption, plotly figure)`` in page order.

    Returns:
        A list of dicts ``id, section, title, caption, height, json`` (the figure's plotly JSON, escaped for a
        ``<script>`` element).
    """
    from plotly.utils import PlotlyJSONEncoder

    out = []
    for i, (fid, title, caption, fig) in enumerate(figs):
        text = json.dumps(fig.to_plotly_json(), cls=PlotlyJSONEncoder, separators=(",", ":"))
        out.append(
            {
                "id": f"fig-{i}-{fid}",
                "section": fid,
                "title": title,
                "caption": caption,
                "height": int(fig.layout.height or 450),
                "json": _script_safe(text),
            }
        )
    return out


def _script_safe(text: str) -> str:
    """JSON made safe inside a ``<script>`` element: no ``<``, ``>``, ``&`` or line separators left raw."""
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
