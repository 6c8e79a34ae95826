// Find open issues assigned to me and summarise them by label.
const me = await tools.github_get_me({});
const query = `repo:${me.login}/codemode is:issue is:open assignee:${me.login}`;
const issues = [];
let page = 1;
while (true) {
  const res = await tools.github_search_issues({ q: query, per_page: 50, page });
  if (!res || !Array.isArray(res.items) || res.items.length === 0) break;
  issues.push(...res.items);
  if (res.items.length < 50 || page >= 5) break;
  page++;
}
const byLabel = new Map();
for (const issue of issues) {
  const labels = issue.labels?.length ? issue.labels.map((l) => l.name) : ["(none)"];
  for (const name of labels) {
    if (!byLabel.has(name)) byLabel.set(name, []);
    byLabel.get(name).push({ number: issue.number, title: issue.title.trim(), updated: issue.updated_at });
  }
}
const sorted = [...byLabel.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
let report = `# Open issues for ${me.login}\n\n`;
for (const [label, list] of sorted) {
  report += `## ${label} (${list.length})\n`;
  for (const { number, title, updated } of list.slice(0, 10)) {
    const age = Math.round((Date.now() - Date.parse(updated)) / 86400000);
    report += `- #${number} ${title.replace(/\s+/g, " ")} — updated ${age} day${age === 1 ? "" : "s"} ago\n`;
  }
  if (list.length > 10) report += `- … and ${list.length - 10} more\n`;
}
const stale = issues.filter((i) => Date.now() - Date.parse(i.updated_at) > 30 * 86400000);
if (stale.length > 0) {
  const results = await Promise.all(
    stale.slice(0, 5).map(async (i) => {
      try {
        const comments = await tools.github_list_comments({ issue: i.number, per_page: 1 });
        return { n: i.number, last: comments[0]?.created_at ?? null };
      } catch (err) {
        return { n: i.number, error: String(err) };
      }
    }),
  );
  store("stale", results);
  text({ staleCount: stale.length, checked: results });
}
text(report);
const total = issues.reduce((acc, i) => acc + (i.comments ?? 0), 0);
text(`total comments: ${total}, average ${(total / Math.max(issues.length, 1)).toFixed(2)}`);
