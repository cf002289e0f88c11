/* cpc-only: a channel of a typedef'd struct */
#include <stdio.h>
typedef struct { int id; float load; } report;
channel report reports;
void node(int id) { report r; r.id = id; r.load = id * 0.5f; reports = r; }
int main(void) {
    int i;
    float total = 0;
    for (i = 1; i <= 3; i++) fork node(i);
    for (i = 0; i < 3; i++) { report r = reports; total += r.load; }
    for (i = 0; i < 3; i++) join;
    printf("%.1f\n", total);
    return 0;
}
