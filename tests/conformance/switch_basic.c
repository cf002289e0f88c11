/* switch with default */
#include <stdio.h>
const char *name(int d) {
    switch (d) {
    case 0: return "zero";
    case 1: return "one";
    case 2: return "two";
    default: return "many";
    }
}
int main(void) {
    printf("%s %s %s %s\n", name(0), name(1), name(2), name(9));
    return 0;
}
