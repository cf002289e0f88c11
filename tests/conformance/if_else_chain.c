/* if / else if / else and dangling else */
#include <stdio.h>
int grade(int s) {
    if (s >= 90) return 'A';
    else if (s >= 80) return 'B';
    else if (s >= 70) return 'C';
    else return 'F';
}
int main(void) {
    int x = 5;
    printf("%c%c%c%c\n", grade(95), grade(85), grade(72), grade(10));
    if (x > 0)
        if (x > 10) printf("big\n");
        else printf("small\n");
    return 0;
}
