/* memset with a non-zero byte on ints would not give C's bytes: refused */
#include <string.h>
int main(void) { int a[4]; memset(a, 1, sizeof a); return a[0]; }
