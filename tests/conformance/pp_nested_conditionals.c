/* nested conditionals: inactive branches are skipped whole */
#include <stdio.h>
#define A 1
int main(void) {
#if A
#  if 0
    printf("no\n");
#    error not reached
#  else
    printf("yes\n");
#  endif
#else
#  if 1
    printf("never\n");
#  endif
#endif
    return 0;
}
