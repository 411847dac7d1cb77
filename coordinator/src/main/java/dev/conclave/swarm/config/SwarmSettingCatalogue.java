package dev.conclave.swarm.config;

import dev.conclave.settings.Setting;
import dev.conclave.settings.SettingCatalogue;

import java.util.List;

/** The coordinator's settings for the catalogue of every module's settings (found through ServiceLoader). */
public final class SwarmSettingCatalogue implements SettingCatalogue {

  @Override
  public List<Setting<?>> settings() {
    return SettingCatalogue.declaredIn(SwarmSettings.class);
  }
}
