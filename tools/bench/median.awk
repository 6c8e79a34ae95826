# median(list): the median of the numbers in list, a string of space-separated values. The bench
# scripts prepend this file to their awk programs (awk "$(cat tools/bench/median.awk)"'...').
function median(list,   n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return a[int((n + 1) / 2)]
}
