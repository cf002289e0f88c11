/* Declarators C allows: a pointer to an array (T (*p)[N]) as a variable and a
   parameter, a parenthesised pointer, qualifiers, static and * inside a parameter's
   brackets; floating comparisons in a static initialiser; an enum defined in a
   do-while's condition is not the body's (C11 6.8.5p5). */
#include <stdio.h>
static int sum(int (*rows)[3], int n) {
  int s = 0;
  for (int i = 0; i < n; i++) for (int j = 0; j < 3; j++) s += rows[i][j] * (i + 1);
  return s;
}
void fooc(int (* const x));
void fooc(int *x) { x[0] = 42; }
void foos(int x[static 5]);
void foos(int x[static 5]) { x[1] = 7; }
enum { in = 0 };
static int e1 = -1.0 < 0.0, e2 = !0.5, e3 = 2.5 == 2.5;

int main(void) {
  int seen = -1;
  do { seen = in; } while (0 * sizeof(enum { in = 1 }));
  printf("%d %d %d %d\n", seen, e1, e2, e3);
  int m[2][3] = { {1, 2, 3}, {4, 5, 6} };
  int (*p)[3] = m;
  p++;
  printf("%d %d %d\n", sum(m, 2), (*p)[1], (int)(sizeof *p / sizeof(int)));
  int v[5];
  fooc(v); foos(v);
  printf("%d %d\n", v[0], v[1]);
  return 0;
}
