import { esc, scrubPage } from './html.js';
import type { DrawnBy } from './status-view.js';

const STYLE = `
:root{color-scheme:light;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--part:#bc4c00;--run:#0969da;--info:#0a7ea4;--more:#6639ba;--muted:#59636e;--line:#d1d9e0}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
header{background:#fff;border-bottom:1px solid var(--line);padding:16px 28px}header h1{margin:0;font-size:22px}
header p{margin:4px 0 0;color:var(--muted)}main{padding:20px 28px;max-width:1280px}
h2{font-size:15px;margin:0 0 8px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
h3{font-size:18px;margin:28px 0 10px}.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:14px}
.card{background:#fff;border:1px solid var(--line);border-radius:10px;padding:14px 16px}.card p{margin:4px 0}
.note{color:var(--muted);font-size:13px}.live{color:var(--run)}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line);border-radius:10px;overflow:hidden}
th,td{padding:7px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:#f6f8fa;font-size:13px;color:var(--muted)}td.n{text-align:right;font-variant-numeric:tabular-nums}
.tables{color:var(--muted);font-size:12px;margin-top:3px}code{font-size:13px}
.pill{display:inline-block;padding:1px 9px;border-radius:10px;font-size:13px;font-weight:600;color:#fff;background:var(--muted)}
.pill.succeeded,.pill.complete{background:var(--ok)}.pill.failed,.pill.crashed,.pill.incomplete{background:var(--bad)}
.pill.interrupted{background:var(--warn)}.pill.running{background:var(--run)}.pill.partial{background:var(--part)}
.pill.explained{background:var(--info)}.pill.more{background:var(--more)}
.failed:not(.pill){color:var(--part);font-size:13px;margin-top:3px}
.chart{display:block;width:100%;max-width:960px;background:#fff;border:1px solid var(--line);border-radius:10px}
.bar{fill:#54aeff}.bar.refused{fill:var(--bad)}.limit{stroke:var(--bad);stroke-dasharray:6 4;stroke-width:2;fill:none}
.point429{fill:var(--bad);stroke:#fff;stroke-width:1.5}.point-label{font-size:12px;font-weight:600;fill:var(--bad)}
.axis{stroke:#8c959f}.grid{stroke:#eaeef2}.tick{font-size:12px;fill:var(--muted)}
.axis-title{font-size:12px;fill:#1f2328}.legend{font-size:12px;fill:#1f2328}
.run-bar{fill:var(--muted)}.run-bar.succeeded{fill:var(--ok)}.run-bar.partial{fill:var(--part)}.run-bar.interrupted{fill:var(--warn)}
.run-bar.failed,.run-bar.crashed{fill:var(--bad)}.run-bar.running{fill:var(--run)}.rows-bar{fill:#54aeff}
.cell.complete{fill:var(--ok)}.cell.explained{fill:var(--info)}.cell.more{fill:var(--more)}.cell.incomplete{fill:var(--bad)}
.cell-text{font-size:11px;font-weight:700;fill:#fff}.bar-label{font-size:11px;fill:#1f2328}.history{display:block}
.age{font-variant-numeric:tabular-nums}.output code{word-break:break-all}
.progress{width:100%;max-width:300px;height:14px}.track{fill:#eaeef2}.fill{fill:var(--ok)}
footer{padding:8px 28px 24px;color:var(--muted);font-size:13px}
.account{margin-top:36px;border-top:3px solid var(--line)}.account>h2{font-size:22px;margin:16px 0 2px;color:#1f2328;text-transform:none;letter-spacing:0}
.account>p.api{margin:0 0 12px;color:var(--muted)}table.accounts a{color:var(--run);font-weight:600}.failure{color:var(--bad);font-size:13px;margin-top:3px}
`;

/**
 * The frame of every status page: one self-contained HTML document, no script
 * and nothing fetched (styles inline, charts as SVG drawn by the sections), so
 * it reads the same in a browser, a mail attachment or a CI artifact. The whole
 * page passes scrubPage last: no token and no e-mail address, whatever text
 * carried them in.
 */
export function pageShell(parts: { title: string; subtitle: string; main: string }): string {
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(parts.title)}</title><style>${STYLE}</style></head>
<body><header><h1>helpdesk-sync status</h1><p>${parts.subtitle}</p></header>
<main>${parts.main}</main>
<footer>Figures from the state's run records (the summary each run stored with its manifest). Completeness: docs/streams.md; rate limits: docs/rate-limits.md; this page: docs/operations.md.</footer>
</body></html>
`;
  return scrubPage(page);
}

/** Who drew the page, before its time: the daemon serves it live, `report --html` wrote a copy. */
export function drawnWords(drawnBy: DrawnBy | undefined): string {
  return drawnBy === 'daemon' ? 'served by the daemon at' : 'written by report --html at';
}

/** When the page was drawn, to the second. */
export function generatedAt(date: Date): string {
  return esc(date.toISOString().replace(/\.\d+Z$/, 'Z'));
}
