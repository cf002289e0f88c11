/* File-scope initialisers C allows: null pointer constants (NULL, (int *)0, 0) in
   pointers and arrays of them, casts ((long)4, (double)1 / 3), a constant condition
   choosing an address, a library function as a function pointer, long constants folded
   in 64 bits (1L << 40); free(0) does nothing. */
#include <stdio.h>
#include <stdlib.h>
struct node { int v; struct node *next; };
struct node *head = NULL;
const char *names[] = { "a", NULL, "c" };
long x = (long)4;
long big = 1L << 40;
long big2 = 3000000000L * 2;
unsigned long top = 1UL << 63;
double d = (double)1 / 3;
int flag = 1;
int arr[4];
int *p = 1 ? arr : 0;
int *q = (int *)0;
void *vp = 0;
int (*fp)(const char *) = puts;
int main(void) {
  free(0);
  printf("%d %s %d %s %ld %.6f %d %d %d %d\n", head == NULL, names[0], names[1] == NULL, names[2], x, d, p == arr, q == 0, vp == 0, fp != 0);
  printf("%ld %ld %lu\n", big, big2, top);
  return 0;
}
