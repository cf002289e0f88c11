/* _Static_assert at file and block scope, with constant expressions over enums and sizeof */
#include <stdio.h>
enum { SLOTS = 8 };
_Static_assert(SLOTS % 2 == 0, "slots come in pairs");
_Static_assert(sizeof(int) >= 1, "an int takes room");
int main(void) {
    _Static_assert(SLOTS * 2 == 16, "sixteen halves");
    printf("%d\n", SLOTS);
    return 0;
}
