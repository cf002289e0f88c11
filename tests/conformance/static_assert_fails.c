/* a false _Static_assert stops the compilation with its message */
#define N 5
_Static_assert(N % 2 == 0, "N must be even");
int main(void) { return 0; }
