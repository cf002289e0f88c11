/* scanf %s and %c and %f */
#include <stdio.h>
int main(void) {
    char word[32];
    char c;
    float f;
    scanf("%s %c %f", word, &c, &f);
    printf("%s|%c|%.2f\n", word, c, f);
    return 0;
}
