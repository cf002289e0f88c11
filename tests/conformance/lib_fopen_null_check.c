/* fopen result checked against NULL */
#include <stdio.h>
int main(void) {
    FILE *f = fopen("definitely_missing.txt", "r");
    if (!f) printf("cannot open\n");
    f = fopen("conf_tmp2.txt", "w");
    if (f != NULL) { fprintf(f, "x"); fclose(f); printf("written\n"); }
    return 0;
}
