/* Copyright (c) 2026 The FT-MPICH authors. See LICENSE. */
/* What MPI_Init leaves of hwloc to the application. MPI_Init opens hwloc
 * without its libxml2 plugin unless the user set HWLOC_PLUGINS_BLACKLIST
 * (scripts/hw_topology_xml_plugin.sh looks at the libraries each process
 * opens); either way the variable must read afterwards as the user left it
 * (argv[1]: its expected value, or "unset"), and the application's own
 * topology must still be exported to XML and read back with the same
 * processing units, whichever XML parser hwloc then uses. Linked with
 * -lhwloc. */
#include "ftmpi_test.h"
#include <hwloc.h>

int main(int argc, char **argv)
{
    const char *expected = argc > 1 ? argv[1] : "unset";
    hwloc_topology_t mine, reread;
    char *xml = NULL;
    int xml_len = 0;

    MPI_Init(&argc, &argv);
    const char *blacklist = getenv("HWLOC_PLUGINS_BLACKLIST");
    if (!strcmp(expected, "unset"))
        CHECK(blacklist == NULL, "MPI_Init left HWLOC_PLUGINS_BLACKLIST=%s behind", blacklist);
    else
        CHECK(blacklist && !strcmp(blacklist, expected),
              "HWLOC_PLUGINS_BLACKLIST is '%s' after MPI_Init, the user set '%s'",
              blacklist ? blacklist : "(unset)", expected);

    CHECK(hwloc_topology_init(&mine) == 0 && hwloc_topology_load(mine) == 0,
          "the application's own topology did not load");
    CHECK(hwloc_topology_export_xmlbuffer(mine, &xml, &xml_len, 0) == 0 && xml_len > 0,
          "the application's topology was not exported to XML");
    if (xml_len > 0) {
        CHECK(hwloc_topology_init(&reread) == 0 &&
              hwloc_topology_set_xmlbuffer(reread, xml, xml_len) == 0 &&
              hwloc_topology_load(reread) == 0, "the exported XML was not read back");
        int pus = hwloc_get_nbobjs_by_type(mine, HWLOC_OBJ_PU);
        int pus_reread = hwloc_get_nbobjs_by_type(reread, HWLOC_OBJ_PU);
        CHECK(pus > 0 && pus == pus_reread, "%d processing units, %d in the XML read back", pus,
              pus_reread);
        hwloc_topology_destroy(reread);
        hwloc_free_xmlbuffer(mine, xml);
    }
    hwloc_topology_destroy(mine);
    return test_finish();
}
