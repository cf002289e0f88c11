/* the # operator */
#include <stdio.h>
#define STR(x) #x
#define SHOW(e) printf("%s = %d\n", #e, e)
int main(void) {
    printf("%s\n", STR(hello   world));
    SHOW(6 * 7);
    SHOW(1 + 2 * 3);
    return 0;
}
