"""The job launcher's pure parts: which connector jars to pass, spark-submit's argv, the driver log."""

from __future__ import annotations

import json
import subprocess
import sys

from streamctl.spark import launcher
from tests import repo

FIXTURES = repo.FIXTURES / "spark"
# `mvn dependency:copy-dependencies` of spark-sql-kafka-0-10_2.13:4.2.0 (runtime scope).
CONNECTOR_CLOSURE = [
    "commons-pool2-2.13.1.jar", "hadoop-client-api-3.5.0.jar", "hadoop-client-runtime-3.5.0.jar",
    "jsr305-3.0.0.jar", "kafka-clients-3.9.2.jar", "lz4-java-1.10.1.jar", "scala-library-2.13.15.jar",
    "scala-parallel-collections_2.13-1.2.0.jar", "slf4j-api-1.7.36.jar", "snappy-java-1.1.10.5.jar",
    "spark-sql-kafka-0-10_2.13-4.2.0.jar", "spark-tags_2.13-4.2.0.jar",
    "spark-token-provider-kafka-0-10_2.13-4.2.0.jar",
]


def test_artifact_names_drop_the_version_only():
    assert launcher.artifact_name("spark-sql-kafka-0-10_2.13-4.2.0.jar") == "spark-sql-kafka-0-10_2.13"
    assert launcher.artifact_name("kafka-clients-3.9.2.jar") == "kafka-clients"
    assert launcher.artifact_name("guava-33.4.0-jre.jar") == "guava"
    assert launcher.artifact_name("commons-pool2-2.13.1.jar") == "commons-pool2"


def test_only_jars_pyspark_lacks_are_passed():
    """Against the installed pyspark's own jars/: the four jars the connector adds, no duplicates."""
    shipped = {launcher.artifact_name(j.name) for j in (launcher.pyspark_home() / "jars").glob("*.jar")}
    extra = sorted(j for j in CONNECTOR_CLOSURE if launcher.artifact_name(j) not in shipped)
    assert extra == ["commons-pool2-2.13.1.jar", "kafka-clients-3.9.2.jar",
                     "spark-sql-kafka-0-10_2.13-4.2.0.jar", "spark-token-provider-kafka-0-10_2.13-4.2.0.jar"]


def test_pinned_version_is_the_installed_one():
    assert launcher.pyspark_version() == launcher.PYSPARK_PIN
    assert launcher.CONNECTOR.coordinates == (
        f"org.apache.spark:spark-sql-kafka-0-10_2.13:{launcher.PYSPARK_PIN}",)


def _spec(master: str = "local[2]") -> launcher.JobSpec:
    return launcher.JobSpec(
        name="weblog-stats", script="/opt/jobs/weblog_stats.py", master=master,
        bootstrap_servers="127.0.0.1:9092", checkpoint_dir="/data/cp", progress_file="/data/progress.jsonl",
        ui_port=4747, log="/data/driver.log", job_args=["--trigger-seconds", "3"],
        jars=["/c/kafka-clients-3.9.2.jar", "/c/spark-sql-kafka-0-10_2.13-4.2.0.jar"])


def test_submit_argv_local():
    argv, env = launcher.submit_argv(_spec())
    assert argv[0].endswith("pyspark/bin/spark-submit")
    assert argv[argv.index("--master") + 1] == "local[2]"
    assert argv[argv.index("--driver-memory") + 1] == launcher.DRIVER_MEMORY
    assert "spark.ui.port=4747" in argv and "spark.driver.bindAddress=127.0.0.1" in argv
    assert argv[argv.index("--jars") + 1] == "/c/kafka-clients-3.9.2.jar,/c/spark-sql-kafka-0-10_2.13-4.2.0.jar"
    assert argv[argv.index("/opt/jobs/weblog_stats.py") + 1:] == [
        "--bootstrap-servers", "127.0.0.1:9092", "--checkpoint-dir", "/data/cp",
        "--progress-file", "/data/progress.jsonl", "--trigger-seconds", "3"]
    assert env["SPARK_LOCAL_IP"] == "127.0.0.1" and env["PYSPARK_PYTHON"] == sys.executable


def test_submit_argv_cluster_binds_no_loopback():
    argv, env = launcher.submit_argv(_spec("spark://spark-master:7077"))
    assert argv[argv.index("--master") + 1] == "spark://spark-master:7077"
    assert not any("bindAddress" in a for a in argv) and "SPARK_LOCAL_IP" not in env


def test_building_argv_imports_no_pyspark():
    code = ("import sys\nfrom streamctl.spark import launcher\nlauncher.spark_submit()\n"
            "print(any(m.split('.')[0] == 'pyspark' for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_driver_info_from_the_real_driver_log(tmp_path):
    """App ids as the REST API gave them during the capture: one run, a restart, the second run."""
    first, second = json.loads((FIXTURES / "capture.json").read_text())["app_ids"]
    log = FIXTURES / "driver-excerpt.log"
    text = log.read_text()
    app_id, ui_url = launcher.driver_info(log)
    assert app_id == second and ui_url.startswith("http://127.0.0.1:")
    cut = text.index("weblog_stats: stopped")
    first_run_only = tmp_path / "first.log"
    first_run_only.write_text(text[:cut])
    assert launcher.driver_info(first_run_only)[0] == first
    assert launcher.driver_info(log, offset=len(text[:cut].encode()))[0] == second
    assert launcher.driver_info(tmp_path / "missing.log") == (None, None)


def test_other_drivers_app_ids_come_from_spark_lines(tmp_path):
    log = tmp_path / "driver.log"
    log.write_text("26/11/25 10:00:00 INFO YarnClientSchedulerBackend: Application application_1700000000000_0042 "
                   "has started running.\n")
    assert launcher.driver_info(log)[0] == "application_1700000000000_0042"
