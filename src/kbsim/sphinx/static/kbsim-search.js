/*
 * kbsim: search results with the matching text, from disk (file://) as well as from a server; rules first.
 *
 * Loaded on the search page only, with kbsim-search-text.js (window.KBSIM_SEARCH: the text of every section of
 * every page, and the pages of rules references). Sphinx's searchtools.js fetches each result's page to show its
 * text, which a browser refuses for pages opened from disk; this script switches that fetch off, shows the text from
 * KBSIM_SEARCH instead, and ranks the rules pages first. See kbsim/sphinx/search.py.
 */
"use strict";

(() => {
  const data = window.KBSIM_SEARCH;
  if (!data) return;
  const CONTEXT = 120; // characters shown before the first match (and twice that in all)

  // Split a query as Sphinx does, drop its stop words, stem what is left (Stemmer and stopwords come from
  // language_data.js, in the site's language).
  const queryTerms = () => {
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const split = typeof splitQuery === "function" ? splitQuery : (q) => q.split(/\s+/).filter((t) => t);
    const stemmer = typeof Stemmer === "function" ? new Stemmer() : null;
    const words = [];
    const stems = [];
    for (const word of split(query.trim())) {
      const lower = word.toLowerCase();
      if ((typeof stopwords !== "undefined" && stopwords.has(lower)) || lower.match(/^\d+$/)) continue;
      words.push(lower);
      stems.push(stemmer ? stemmer.stemWord(lower) : lower);
    }
    return { words, stems };
  };

  // The first place in `text` where one of the words or stems starts, or -1.
  const firstMatch = (text, terms) => {
    const lower = text.toLowerCase();
    let best = -1;
    for (const term of [...terms.words, ...terms.stems]) {
      if (!term) continue;
      const at = lower.indexOf(term);
      if (at > -1 && (best < 0 || at < best)) best = at;
    }
    return best;
  };

  const snippet = (text, at) => {
    const start = Math.max(0, at - CONTEXT);
    const head = start > 0 ? "..." : "";
    const tail = start + 2 * CONTEXT < text.length ? "..." : "";
    return head + text.substr(start, 2 * CONTEXT).trim() + tail;
  };

  // The section a result shows: the one its link names, else the first section whose title, then whose text, holds
  // a search word (the page's first section when none does).
  const pickSection = (sections, anchor, terms) => {
    if (anchor) return sections.find((s) => s[0] === anchor) || null;
    return (
      sections.find((s) => firstMatch(s[1], terms) > -1) ||
      sections.find((s) => firstMatch(s[2], terms) > -1) ||
      sections[0] ||
      null
    );
  };

  const decorate = (item, terms) => {
    const link = item.querySelector("a");
    if (!link || item.querySelector("p.context")) return;
    const [page, anchor] = (link.getAttribute("href") || "").split("#");
    const sections = data.docs[page];
    if (!sections || !sections.length) return;
    const section = pickSection(sections, anchor, terms);
    if (!section) return;
    if (!anchor && section !== sections[0]) {
      link.setAttribute("href", `${page}#${section[0]}`);
      link.textContent = `${link.textContent} > ${section[1]}`;
    }
    if (anchor && item.querySelector("span")) link.textContent = section[1]; // an object: its name as shown
    const game = (data.games || {})[page];
    if (game && !link.textContent.startsWith(game)) link.textContent = `${game}: ${link.textContent}`;
    const href = link.getAttribute("href");
    const earlier = [...item.parentElement.querySelectorAll("li > a")].find(
      (a) => a !== link && a.getAttribute("href") === href,
    );
    if (earlier) {
      item.remove(); // the same section as a result above it
      return;
    }
    let text = section[2];
    let at = firstMatch(text, terms);
    if (at < 0 && !anchor && firstMatch(section[1], terms) < 0) {
      // the words are in a subsection's text: show the first that holds them (a heading that matches shows its own)
      const other = sections.find((s) => firstMatch(s[2], terms) > -1);
      if (other) [text, at] = [other[2], firstMatch(other[2], terms)];
    }
    if (!text) {
      // a section with nothing of its own (a page title above its subsections): the text that follows it
      const next = sections.slice(sections.indexOf(section) + 1).find((s) => s[2]);
      if (!next) return;
      [text, at] = [next[2], firstMatch(next[2], terms)];
    }
    const summary = document.createElement("p");
    summary.classList.add("context");
    summary.textContent = snippet(text, Math.max(at, 0));
    item.appendChild(summary);
    if (typeof SPHINX_HIGHLIGHT_ENABLED !== "undefined" && SPHINX_HIGHLIGHT_ENABLED && typeof _highlightText === "function")
      terms.words.forEach((word) => _highlightText(summary, word, "highlighted"));
  };

  // Runs before Sphinx's Search.init (both wait for the document; this script is loaded first).
  document.addEventListener("DOMContentLoaded", () => {
    if (typeof DOCUMENTATION_OPTIONS !== "undefined") DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
    if (typeof Scorer !== "undefined") {
      const rules = new Set(data.rules);
      const previous = Scorer.score;
      Scorer.score = (result) => {
        const score = previous ? previous(result) : result[4];
        if (!rules.has(result[0])) return score;
        return score + data.boost + (result[6] === "title" ? data.title_boost : 0); // a heading that matches
      };
    }
    const results = document.getElementById("search-results");
    if (!results) return;
    const terms = queryTerms();
    new MutationObserver((changes) => {
      for (const change of changes)
        for (const node of change.addedNodes)
          if (node.nodeName === "LI" && node.parentElement && node.parentElement.matches("ul.search"))
            decorate(node, terms);
    }).observe(results, { childList: true, subtree: true });
  });
})();
