/* an enum declared inside a function */
#include <stdio.h>
int main(void) {
    enum level { LOW = 1, MID = 5, HIGH = 10 } lv = MID;
    printf("%d %d\n", lv, HIGH - LOW);
    return 0;
}
