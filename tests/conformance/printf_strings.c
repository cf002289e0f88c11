/* printf %s with width and precision */
#include <stdio.h>
int main(void) {
    char *s = "simulator";
    printf("[%s] [%12s] [%-12s] [%.3s]\n", s, s, s, s);
    return 0;
}
