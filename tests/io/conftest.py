"""Model files to take apart: read a file's header and members, and write altered ones."""

import json
import zipfile

import pytest


class ModelArchive:
    """The header and the members of a model file, to alter and write back as a zip."""

    def __init__(self, path):
        with zipfile.ZipFile(path) as archive:
            self.members = {info.filename: archive.read(info) for info in archive.infolist()}
        self.header = json.loads(self.members["header.json"])

    def write(self, path, compression=zipfile.ZIP_STORED):
        """Write the (altered) header and members to ``path``."""
        with zipfile.ZipFile(path, "w", compression=compression) as archive:
            for name, data in self.members.items():
                if name != "header.json":
                    archive.writestr(name, data)
            archive.writestr("header.json", json.dumps(self.header))
        return path


@pytest.fixture(scope="session")
def model_archive():
    """The class :class:`ModelArchive`."""
    return ModelArchive
