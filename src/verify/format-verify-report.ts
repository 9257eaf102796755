import type { VerifyReport } from './verify-types.js';

/** Unexplained findings: what makes verify exit 1. */
export function unexplainedCount(report: VerifyReport): number {
  return report.findings.filter((f) => !f.explained).reduce((n, f) => n + f.count, 0);
}

/** The report for stdout: counts per stream and table, then each finding, then the verdict. */
export function formatVerifyReport(report: VerifyReport): string {
  const width = Math.max(8, ...report.counts.map((c) => c.subject.length));
  const lines = report.counts.map((c) => {
    const api = c.api === undefined ? '' : `api ${c.api}  `;
    const output = c.output === undefined ? '' : `  output ${c.output}`;
    return `  ${c.subject.padEnd(width)}  ${api}state ${c.state}${output}`;
  });
  for (const f of report.findings) {
    const examples =
      f.examples.length > 0 ? `: ${f.examples.join(', ')}${f.count > f.examples.length ? ', …' : ''}` : '';
    lines.push(
      `  ${f.explained ? 'explained  ' : 'UNEXPLAINED'} ${f.subject} ${f.kind} ${f.count} (${f.note})${examples}`,
    );
  }
  const unexplained = unexplainedCount(report);
  const explained = report.findings.filter((f) => f.explained).reduce((n, f) => n + f.count, 0);
  const sampled = report.sampled > 0 ? `, ${report.sampled} conversations compared field by field` : '';
  lines.push(
    unexplained > 0
      ? `verify: ${unexplained} unexplained difference(s) (${explained} explained${sampled}; ${report.requests} requests)`
      : `verify: no unexplained difference (${explained} explained${sampled}; ${report.requests} requests)`,
  );
  return lines.join('\n');
}
